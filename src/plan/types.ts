import type { Kind } from '../schema/kinds.js';

/** The plan file format version this build writes and the only one `apply` accepts. */
export const PLAN_VERSION = 1;

/** What a change does to the live account. */
export type ChangeAction = 'create' | 'update' | 'delete' | 'noop';

/** One RFC 6902 operation over the normalized resource. */
export interface PatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
  /** mac's addition: the live value a replace or remove changes (for renderers; secrets "(sensitive)"). */
  oldValue?: unknown;
}

/** Marker for a reference whose API id is known only after its target is created. */
export interface RefMarker {
  $ref: string; // "Kind/logical-id"
}

/** A secret value in `desired`: the value itself is never in a plan, only where to get it again. */
export interface SecretSource {
  /** JSON pointer into `desired`. */
  path: string;
  /** Environment variable the value came from, when it was exactly one `${{ env.NAME }}`. */
  env?: string;
}

/** One planned change (contract fields first, then mac's own additions). */
export interface PlannedChange {
  action: ChangeAction;
  kind: Kind;
  id: string;
  name?: string;
  remoteId?: string | number;
  file?: string;
  line?: number;
  patch: PatchOp[];
  /** sha256 of the normalized live object; absent for creates. */
  liveFingerprint?: string;
  /** "Kind/id" of the changes this one needs first. */
  dependsOn: string[];
  /** The full normalized request body to send (create/update); references as RefMarker, secrets as "(sensitive)". */
  desired?: Record<string, unknown>;
  /**
   * Create only: pointers of the fields of `desired` that the definition does not set (server
   * defaults made explicit). They stay in `desired` and `patch`; text and markdown count them.
   */
  defaulted?: string[];
  /** Secret values left out of `desired` and of every diff. */
  secrets?: SecretSource[];
  /** Remarks for people: write-only fields not compared, adoption, etc. */
  notes?: string[];
  /** With changedSince: true when the change's definition is in one of the changed files (listed first). */
  inChangedFiles?: boolean;
}

/** The files changed since a git ref, and whether the plan was narrowed to them. */
export interface ChangedSince {
  ref: string;
  files: string[];
  only?: boolean;
  leftOut?: number;
}

/** A plan: a plain, versioned document written by `plan --out` and read back by `apply`. */
export interface Plan {
  version: typeof PLAN_VERSION;
  project: string;
  createdAt: string;
  apiUrl: string;
  git?: { commit?: string; branch?: string };
  summary: { create: number; update: number; delete: number; noop: number };
  changes: PlannedChange[];
  /** Absolute path of the planned project directory (to re-read secrets on apply). */
  dir?: string;
  /**
   * Set with --changed-since: the changes of definitions in these files are marked
   * `inChangedFiles` and listed first; the plan still covers the whole project. With
   * --only-changed-since, `only` is true: the plan was narrowed to those files (plus what they
   * depend on) and `leftOut` counts the changes (creates, updates, deletes) it left out.
   */
  changedSince?: ChangedSince;
  /** Things a reviewer must know that are not changes (look-alike checks not adopted, ...). */
  warnings: string[];
}
