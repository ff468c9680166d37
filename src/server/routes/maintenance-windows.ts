import { z } from 'zod';
import { conflict, validationError, type FieldProblem } from '../http/errors.js';
import { ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { intParam, stringParam } from '../http/query.js';
import { mustGet } from '../http/lookup.js';
import { createRecord, deleteRecord, updateRecord } from '../http/write.js';
import { COLL } from '../kinds.js';
import { isTimeZoneName, localDate, MIN_UNIT_DAYS, REPEAT_UNITS, repeats, type MaintenanceWindowRecord } from '../runs/maintenance.js';

// Maintenance windows (reference MaintenanceWindowCreate / MaintenanceWindow, issue 25): integer
// ids, PUT merges (the reference: "only fields included in the request body are modified").
// Checks covered by an active window still run and record; their alerts go to no one
// (runs/alerts.ts). Repeats follow the calendar of `timezone` (an IANA name; UTC when null);
// `pauseAllChecks: true` is refused rather than stored and ignored (checks keep running here).

/** Windows one account may hold: the alerter reads them all on each state change. */
export const MAX_WINDOWS_PER_ACCOUNT = 1000;

/**
 * An instant: ISO 8601 date-time with an offset, or a date (midnight UTC); stored as UTC with ms.
 * From 1970 on: time-zone data (and so the schedule) means nothing before it.
 */
const instant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be an ISO 8601 date-time or date' })
  .refine((s) => Date.parse(s) >= 0, 'must not be before 1970')
  .transform((s) => new Date(Date.parse(s)).toISOString());

/** An inclusive calendar date; a date-time counts as its UTC date (the reference's rule). */
const calendarDate = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], { error: 'must be a date (YYYY-MM-DD)' })
  .transform((s) => (s.length === 10 ? s : new Date(Date.parse(s)).toISOString().slice(0, 10)));

const tagList = z.array(z.string().min(1).max(255)).max(100);

const fields = {
  name: z.string().min(1).max(200),
  tags: tagList,
  startsAt: instant,
  endsAt: instant,
  repeatInterval: z.number().int().min(1).max(365).nullable(),
  repeatUnit: z.enum(REPEAT_UNITS).nullable(),
  repeatEndsAt: calendarDate.nullable(),
  timezone: z
    .string()
    .nullable()
    .refine((tz) => tz === null || isTimeZoneName(tz), 'must be an IANA time zone name such as "Europe/Berlin" (UTC offsets are not accepted)'),
  description: z.string().max(2000).nullable(),
  pauseAllChecks: z.boolean().refine((v) => v === false, 'true is not supported: checks keep running during maintenance, only their alerts are silenced'),
  silenceAlertsTags: tagList,
  silenceAllAlerts: z.boolean(),
};

type Fields = { [K in keyof typeof fields]: z.output<(typeof fields)[K]> };

const createBody = z.object({
  ...fields,
  tags: fields.tags.optional(),
  repeatInterval: fields.repeatInterval.optional(),
  repeatEndsAt: fields.repeatEndsAt.optional(),
  timezone: fields.timezone.optional(),
  description: fields.description.optional(),
  pauseAllChecks: fields.pauseAllChecks.optional(),
  silenceAlertsTags: fields.silenceAlertsTags.optional(),
  silenceAllAlerts: fields.silenceAllAlerts.optional(),
});
const updateBody = z.object(fields).partial();

/** Defaults of the optional fields on create. */
const DEFAULTS = {
  tags: [],
  repeatInterval: null,
  repeatEndsAt: null,
  timezone: null,
  description: null,
  pauseAllChecks: false,
  silenceAlertsTags: [],
  silenceAllAlerts: false,
} satisfies Partial<Fields>;

const idParams = z.object({ id: intParam(1) });

/** Query of the list: pages, and the reference's `startsAt`/`endsAt` filters as `startsAt[gte]=...`. */
const bound = () => stringParam().pipe(instant).optional();
const listQuery = pageQuery.extend({
  'startsAt[gt]': bound(),
  'startsAt[gte]': bound(),
  'startsAt[lt]': bound(),
  'startsAt[lte]': bound(),
  'endsAt[gt]': bound(),
  'endsAt[gte]': bound(),
  'endsAt[lt]': bound(),
  'endsAt[lte]': bound(),
});

/**
 * Cross-field rules on the whole (merged) window: the end after the start, repeat fields that go
 * together, and an occurrence no longer than one repeat period (so occurrences never overlap).
 */
export function windowProblems(w: Fields): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const start = Date.parse(w.startsAt);
  const end = Date.parse(w.endsAt);
  if (end <= start) problems.push({ path: 'endsAt', message: 'must be after startsAt' });
  if (w.repeatInterval !== null && w.repeatUnit === null) problems.push({ path: 'repeatUnit', message: 'is required when repeatInterval is set' });
  if (w.repeatEndsAt !== null && w.repeatInterval === null) problems.push({ path: 'repeatEndsAt', message: 'is only allowed on a repeating window (set repeatInterval)' });
  if (w.repeatEndsAt !== null && w.repeatEndsAt < localDate(start, w.timezone)) problems.push({ path: 'repeatEndsAt', message: 'must not be before the date of startsAt' });
  if (repeats(w) && end > start && end - start > w.repeatInterval! * MIN_UNIT_DAYS[w.repeatUnit!] * 86_400_000) {
    problems.push({ path: 'endsAt', message: `must be at most one repeat period (${w.repeatInterval} ${w.repeatUnit}) after startsAt` });
  }
  return problems;
}

function checked(w: Fields): Fields {
  const problems = windowProblems(w);
  if (problems.length > 0) throw validationError('payload', problems);
  return w;
}

/** Whether a window passes the list's `startsAt[op]` / `endsAt[op]` filters. */
function passesFilters(w: MaintenanceWindowRecord, query: Record<string, unknown>): boolean {
  for (const [key, bound] of Object.entries(query)) {
    const m = /^(startsAt|endsAt)\[(gt|gte|lt|lte)\]$/.exec(key);
    if (!m || typeof bound !== 'string') continue;
    const v = Date.parse(w[m[1] as 'startsAt' | 'endsAt']);
    const b = Date.parse(bound);
    const pass = m[2] === 'gt' ? v > b : m[2] === 'gte' ? v >= b : m[2] === 'lt' ? v < b : v <= b;
    if (!pass) return false;
  }
  return true;
}

/** Routes of `/v1/maintenance-windows`. */
export const maintenanceWindowRoutes: RouteModule = ({ store, isoNow }) => [
  route({
    method: 'GET',
    path: '/v1/maintenance-windows',
    query: listQuery,
    handle: ({ account, query }) => {
      const all = store.list<MaintenanceWindowRecord>(account, COLL.maintenanceWindows).filter((w) => passesFilters(w, query));
      const page = pageOf(all, query);
      return ok(page.body, { 'content-range': page.contentRange });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/maintenance-windows',
    body: createBody,
    handle: ({ account, body }) => {
      const w = checked({ ...DEFAULTS, ...stripUndefined(body) } as Fields);
      return createRecord<MaintenanceWindowRecord>(store, account, COLL.maintenanceWindows, (tx) => {
        if (tx.list(COLL.maintenanceWindows).length >= MAX_WINDOWS_PER_ACCOUNT) throw conflict(`An account holds at most ${MAX_WINDOWS_PER_ACCOUNT} maintenance windows`);
        return { id: tx.nextInt(COLL.maintenanceWindows), ...w, created_at: isoNow(), updated_at: null };
      });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/maintenance-windows/:id',
    params: idParams,
    handle: ({ account, params }) => ok(mustGet<MaintenanceWindowRecord>(store.view(account), COLL.maintenanceWindows, params.id)),
  }),
  route({
    method: 'PUT',
    path: '/v1/maintenance-windows/:id',
    params: idParams,
    body: updateBody,
    handle: ({ account, params, body }) =>
      updateRecord<MaintenanceWindowRecord>(store, account, COLL.maintenanceWindows, params.id, (stored) => {
        const merged = checked({ ...pick(stored), ...stripUndefined(body) } as Fields);
        return { id: stored.id, ...merged, created_at: stored.created_at, updated_at: isoNow() };
      }),
  }),
  route({
    method: 'DELETE',
    path: '/v1/maintenance-windows/:id',
    params: idParams,
    handle: ({ account, params }) => deleteRecord(store, account, COLL.maintenanceWindows, params.id),
  }),
];

/** The client-settable fields of a stored window. */
function pick(w: MaintenanceWindowRecord): Fields {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) out[key] = w[key];
  return out as Fields;
}

function stripUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
