import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';

/** An ISO 8601 instant as the service stores it (UTC with ms); anything unparsable is kept for the service to refuse. */
function utcInstant(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? v : new Date(ms).toISOString();
}

/** A calendar date as the service stores it: a date-time counts as its UTC date (the reference's rule, whatever the zone). */
function utcDate(v: unknown): unknown {
  if (typeof v !== 'string' || /^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? v : new Date(ms).toISOString().slice(0, 10);
}

// `pauseAllChecks` is not managed: the service refuses anything but false. `id` and timestamps
// are server-owned.
const SHAPE: Shape = {
  name: {},
  tags: { default: [], set: true },
  startsAt: { canonical: utcInstant },
  endsAt: { canonical: utcInstant },
  repeatUnit: { default: null, nullable: true },
  repeatInterval: { default: null, nullable: true },
  repeatEndsAt: { default: null, nullable: true, canonical: utcDate },
  timezone: { default: null, nullable: true },
  description: { default: null, nullable: true },
  silenceAlertsTags: { default: [], set: true },
  silenceAllAlerts: { default: false },
};

/**
 * Maintenance windows: matched by `name`. A window has no field that could carry an ownership
 * tag (its `tags` choose the checks it silences, and a `mac:<project>/<id>` tag there would
 * silence the check of that id), so like snippets and services it is matched by a natural key,
 * and the name is the one a person recognises in the app. The PUT merges (reference).
 */
export const maintenanceWindowKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'MaintenanceWindow',
  api: collectionApi('/v1/maintenance-windows'),
  remoteId: (live) => live.id as number,
  displayName: (obj) => obj.name as string | undefined,
  shapeOf: () => SHAPE,
  updateMerges: true,
  naturalKey: (obj) => (typeof obj.name === 'string' ? obj.name : undefined),
  naturalKeyLabel: 'name',
};
