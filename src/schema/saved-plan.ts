import { z } from 'zod';
import { KINDS } from './kinds.js';

/**
 * The plan document as one zod schema: `mac plan --out` writes it, `mac apply PLANFILE` parses
 * saved plans with it (src/apply/plan-file.ts), every TypeScript type of a plan is inferred from
 * it (src/plan/types.ts) and `schemas/plan.schema.json` is generated from it (`mac schemas`).
 * A field added to a plan is added here, once.
 */

/** The plan file format version this build writes and the only one `apply` accepts. */
export const PLAN_VERSION = 1;

/** What a change does to the live account. */
export const ChangeActionSchema = z.enum(['create', 'update', 'delete', 'noop']);

/** One RFC 6902 operation over the normalized resource, plus mac's additions for renderers. */
export const PatchOpSchema = z.object({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string().describe('JSON pointer into the normalized resource (RFC 6901).'),
  value: z.unknown().optional().describe('The new value (add, replace, test); secrets read "(sensitive)", references to resources yet to be created {"$ref": "Kind/id"}.'),
  from: z.string().optional(),
  oldValue: z
    .unknown()
    .optional()
    .describe("mac's addition: the live value a replace or remove changes (for renderers; secrets \"(sensitive)\")."),
  label: z
    .string()
    .optional()
    .describe(
      "mac's addition: marks an operation on a member of a set-like array (tags, locations, privateLocations, retryStrategy.onlyOn, " +
        'alertChannelSubscriptions, environmentVariables) and names that member for people: the value itself for sets of strings, ' +
        "an environment variable's key, the logical id of a subscribed alert channel (\"#<api id>\" when the project does not define it).",
    ),
});

/** Marker for a reference whose API id is known only after its target is created. */
export const RefMarkerSchema = z.object({ $ref: z.string().describe('"Kind/logical-id"') });

/** A secret value in `desired`: the value itself is never in a plan, only where to get it again. */
export const SecretSourceSchema = z.object({
  path: z.string().describe('JSON pointer into `desired`.'),
  env: z.string().optional().describe('Environment variable the value came from, when it was exactly one `${{ env.NAME }}`.'),
  missing: z
    .array(z.string())
    .optional()
    .describe('Environment variables the value needs that were not set when planning: shown as "(sensitive, not set: NAME)"; apply refuses until they are set.'),
});

/** One planned change (contract fields first, then mac's own additions). */
export const PlannedChangeSchema = z.object({
  action: ChangeActionSchema,
  kind: z.enum(KINDS),
  id: z.string().min(1).describe('Logical id of the definition (or, for a pruned resource, the logical id its ownership tag or ownership record names).'),
  name: z.string().optional(),
  remoteId: z.union([z.string(), z.number()]).optional().describe('API id of the live object (absent for creates).'),
  file: z.string().optional().describe('File of the definition, relative to the project directory.'),
  line: z.number().optional(),
  patch: z.array(PatchOpSchema).describe('RFC 6902 operations from the normalized live object to the desired one (a create: one add per field).'),
  liveFingerprint: z.string().optional().describe('sha256 of the normalized live object; absent for creates.'),
  dependsOn: z.array(z.string()).describe('"Kind/id" of the changes this one needs first.'),
  desired: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('The full normalized request body to send (create/update); references as {"$ref"}, secrets as "(sensitive)".'),
  defaulted: z
    .array(z.string())
    .optional()
    .describe(
      'Pointers of fields of `desired` that the definition does not set (server defaults made explicit). They stay in `desired` and `patch`; ' +
        'text and markdown count them instead of showing them (a create: every such field; an update: such fields inside added values).',
    ),
  labels: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'Create only: names of the members of reference sets in `desired`, by pointer (each subscribed alert channel by its logical id, ' +
        '"#<api id>" when the project does not define it); renderers show them instead of raw API ids. Updates carry `label` on their set operations.',
    ),
  secrets: z.array(SecretSourceSchema).optional().describe('Secret values left out of `desired` and of every diff.'),
  notes: z.array(z.string()).optional().describe('Remarks for people: write-only fields not compared, adoption, etc.'),
  inChangedFiles: z.boolean().optional().describe("With changedSince: true when the change's definition is in one of the changed files (listed first)."),
});

/** The files changed since a git ref, and whether the plan was narrowed to them. */
export const ChangedSinceSchema = z
  .object({
    ref: z.string(),
    files: z.array(z.string()),
    only: z.boolean().optional().describe('With --only-changed-since: the plan was narrowed to these files (plus what they depend on).'),
    leftOut: z.number().optional().describe('With --only-changed-since: the changes (creates, updates, deletes) the narrowed plan left out.'),
  })
  .describe('Set with --changed-since: the changes of definitions in these files are marked `inChangedFiles` and listed first; the plan still covers the whole project.');

/** A live resource the project owns and no longer defines: reported, not deleted (`--prune` deletes it). */
export const OrphanedResourceSchema = z.object({
  kind: z.enum(KINDS),
  id: z.string().describe('The logical id its ownership tag or the ownership record names.'),
  name: z.string().optional(),
  remoteId: z.union([z.string(), z.number()]),
});

/**
 * Something outside the project's definitions that stops a delete of `mac destroy`: an incident
 * on one of the project's status-page services (the service delete answers 409 while one uses
 * it), or a subscriber of one of its status pages. Listed before the confirmation; removed
 * (deleted, or detached when the incident also concerns another project's service) just before
 * the object it blocks is deleted.
 */
export const BlockerSchema = z.object({
  type: z.enum(['Incident', 'StatusPageSubscription']),
  action: z.enum(['delete', 'detach']).describe('`detach`: the incident also concerns services of other projects; only this project\'s services are taken off it.'),
  remoteId: z.union([z.string(), z.number()]),
  name: z.string().optional(),
  blocks: z.string().describe('"Kind/id" of the change it blocks.'),
});

/** A plan: a plain, versioned document written by `plan --out` and read back by `apply`. */
export const PlanSchema = z.object({
  version: z.literal(PLAN_VERSION),
  project: z.string().min(1),
  createdAt: z.string(),
  apiUrl: z.string(),
  git: z.object({ commit: z.string().optional(), branch: z.string().optional() }).optional(),
  summary: z
    .object({ create: z.number(), update: z.number(), delete: z.number(), noop: z.number(), orphaned: z.number().optional() })
    .describe('`orphaned`: owned resources no longer defined and not deleted (always written by this build; optional for older plans).'),
  changes: z.array(PlannedChangeSchema),
  orphaned: z
    .array(OrphanedResourceSchema)
    .optional()
    .describe('Resources this project owns (ownership tag or ownership record) but no longer defines, left in place (without `--prune`).'),
  blockers: z.array(BlockerSchema).optional().describe('`mac destroy` only: what it removes first so that the deletes succeed.'),
  dir: z.string().optional().describe('Absolute path of the planned project directory (to re-read secrets on apply).'),
  changedSince: ChangedSinceSchema.optional(),
  warnings: z.array(z.string()).describe('Things a reviewer must know that are not changes (look-alike checks not adopted, ...).'),
});
