/** Definition-only fields shared by every kind: kind, logical id, state, references, scriptFile. */
import { z } from 'zod';
import { doc, severity } from './fields.js';
import type { Kind } from './kinds.js';

/** Logical ids: what definitions use to name and reference each other. */
export const LOGICAL_ID = /^[a-z0-9][a-z0-9._-]*$/;

/** A logical id (`[a-z0-9][a-z0-9._-]*`). */
export const logicalId = z.string().regex(LOGICAL_ID, 'must match [a-z0-9][a-z0-9._-]* (lowercase letters, digits, . _ -)');

/** The `kind` discriminator of a definition document. */
export function kindField<K extends Kind>(kind: K) {
  return z.literal(kind).describe('Resource kind of this document');
}

/** `id`: the logical id of a definition, unique per kind. */
export const idField = doc(logicalId, 'Logical id, unique per kind; other definitions reference it');

/** `state`: `absent` is an explicit tombstone that deletes the live resource. */
export const stateField = doc(z.enum(['present', 'absent']).optional(), 'absent deletes the live resource (a tombstone)', 'present');

/** `alertChannels`: alert channels by logical id, resolved to alertChannelSubscriptions. */
export const alertChannelsField = doc(
  z.array(logicalId).optional(),
  'Alert channels to subscribe, by logical id (resolved to alertChannelSubscriptions)',
);

/** `group`: the check group a check belongs to, by logical id (resolved to groupId). */
export const groupRefField = doc(logicalId.optional(), 'Check group of the check, by logical id (resolved to groupId; groupOrder sets its place)');

/**
 * `privateLocations` of a check definition: an entry naming a PrivateLocation definition by
 * logical id is resolved to its slugName; any other entry is the slug of a location outside the project.
 */
export const privateLocationsField = doc(
  z.array(z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}$/, 'must be a PrivateLocation id or a private-location slug')).nullable().optional(),
  'Private locations that run the check: PrivateLocation ids of this project (resolved to their slugName) or slugs of locations outside it',
  [],
);

/**
 * `triggerIncident` of a check definition: the service by logical id (`service`, resolved to
 * `serviceId`) or, for a service outside the project, by API id (`serviceId`).
 */
export const triggerIncidentField = doc(
  z
    .strictObject({
      service: doc(logicalId.optional(), 'StatusPageService the incident is opened on, by logical id (resolved to serviceId)'),
      serviceId: doc(z.string().min(1).optional(), 'API id of a status-page service outside the project'),
      severity: severity,
      name: doc(z.string().min(1).max(255), 'Incident name'),
      description: doc(z.string(), 'Text of the first incident update'),
      notifySubscribers: z.boolean(),
    })
    .nullable()
    .optional(),
  'Open and resolve a status-page incident from alerts',
  null,
);

/** A snippet reference by logical id (DNS and API checks). */
export function snippetRefField(phase: 'setup' | 'teardown') {
  return doc(logicalId.optional(), `Snippet run in the ${phase} phase, by logical id (resolved to ${phase === 'setup' ? 'setupSnippetId' : 'tearDownSnippetId'})`);
}

/** `scriptFile`: a file, relative to the definition file, whose text stands for `script`. */
export const scriptFileField = doc(z.string().min(1).optional(), 'File (relative to this file) whose content is used as script');

/** `adopt`: the API id of an existing, untagged check this definition takes over (written by `mac import`). */
export const adoptField = doc(
  z.string().min(1).optional(),
  'API id of an existing check this definition adopts; the next apply adds the ownership tag, after which adopt is no longer needed',
);

/**
 * `renamedFrom`: the previous logical id(s) of this definition. A check whose live object still
 * carries the old id's ownership tag is updated in place (its tag moves), not re-created.
 */
export const renamedFromField = doc(
  z.union([logicalId, z.array(logicalId).min(1)]).optional(),
  'Previous logical id (or ids) of this resource: the live check tagged with the old id is updated in place (keeping its API id and history) instead of re-created. Other kinds are matched by name, customUrl or address, so a new id alone never re-creates them; variables cannot change their key',
);

/** `renamedFrom` on a variable: accepted so that the rules phase can say why it cannot work (keys never change). */
export const variableRenamedFromField = doc(
  z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  'Not supported: a variable\'s key cannot change (the API refuses it); define the new key and tombstone the old one (state: absent)',
);
