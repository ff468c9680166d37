import type { z } from 'zod';
import type { BlockerSchema, ChangedSinceSchema, ChangeActionSchema, OrphanedResourceSchema, PatchOpSchema, PlanSchema, PlannedChangeSchema, RefMarkerSchema, SecretSourceSchema } from '../schema/saved-plan.js';

/**
 * The plan's types, each inferred from the one zod schema that `mac apply` parses saved plans
 * with (src/schema/saved-plan.ts): a field exists in the type exactly when apply reads it back.
 */
export { PLAN_VERSION, PlanSchema, PlannedChangeSchema, PatchOpSchema, SecretSourceSchema, RefMarkerSchema, ChangeActionSchema } from '../schema/saved-plan.js';

/** What a change does to the live account. */
export type ChangeAction = z.infer<typeof ChangeActionSchema>;

/** One RFC 6902 operation over the normalized resource (plus `oldValue` and `label` for renderers). */
export type PatchOp = z.infer<typeof PatchOpSchema>;

/** Marker for a reference whose API id is known only after its target is created. */
export type RefMarker = z.infer<typeof RefMarkerSchema>;

/** A secret value in `desired`: the value itself is never in a plan, only where to get it again. */
export type SecretSource = z.infer<typeof SecretSourceSchema>;

/** One planned change (contract fields first, then mac's own additions). */
export type PlannedChange = z.infer<typeof PlannedChangeSchema>;

/** A live resource the project owns and no longer defines: reported, not deleted (`--prune` deletes it). */
export type OrphanedResource = z.infer<typeof OrphanedResourceSchema>;

/** The files changed since a git ref, and whether the plan was narrowed to them. */
export type ChangedSince = z.infer<typeof ChangedSinceSchema>;

/** A plan: a plain, versioned document written by `plan --out` and read back by `apply`. */
export type Plan = z.infer<typeof PlanSchema>;

/** Something `mac destroy` removes first so that a delete succeeds (an incident on a service, a page subscriber). */
export type Blocker = z.infer<typeof BlockerSchema>;
