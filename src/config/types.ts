import type { Kind } from '../schema/kinds.js';

/** A place in a definition file; `file` is relative to the project dir, with `/` separators. */
export interface Position {
  file: string;
  line: number;
  col: number;
}

/** One problem found while loading or validating; all of a run are printed together. */
export interface Diagnostic extends Position {
  severity: 'error' | 'warning';
  /** Field path inside the document, dot-joined with numeric indices (`request.assertions.0.target`); '' = whole document. */
  path: string;
  message: string;
  hint?: string;
}

/** References by logical id that the plan resolves to API ids. */
export interface DefinitionRefs {
  alertChannels?: string[];
  setupSnippet?: string;
  tearDownSnippet?: string;
  /** Checks: the CheckGroup (resolved to groupId). */
  group?: string;
  /** Checks: PrivateLocation ids or raw slugs (ids resolved to the location's slugName). */
  privateLocations?: string[];
  /** Checks: `triggerIncident.service`, the StatusPageService incidents are opened on. */
  incidentService?: string;
  /** Status pages: the StatusPageService ids of each card, in order. */
  cardServices?: string[][];
}

/** One validated, resolved resource definition. */
export interface Definition extends Position {
  kind: Kind;
  /** Logical id; for EnvironmentVariable, its key. */
  id: string;
  /** `absent` is an explicit tombstone: delete the live resource. */
  state: 'present' | 'absent';
  /**
   * The API-shaped body: field names as the API's, `defaults.check` merged under checks,
   * `scriptFile` read into `script`, `${{ env.NAME }}` interpolated. Without kind, id, state,
   * and without the logical references (those are in `refs`).
   */
  spec: Record<string, unknown>;
  refs: DefinitionRefs;
  /** JSON pointers into `spec` whose values are secret (never printed, written only). */
  secretPaths: string[];
  /** JSON pointer into `spec` -> environment variable name, for values that are exactly one `${{ env.NAME }}`. */
  envSources: Record<string, string>;
  /** JSON pointers into `spec` of every value read from the environment, in part or whole: masked in every plan. */
  envPaths?: string[];
  /**
   * JSON pointer into `spec` -> unset environment variables, for masked values (secrets,
   * credentials, locked values) whose variable is not set: a warning until apply, which refuses.
   */
  missingEnv?: Record<string, string[]>;
  /**
   * Checks only: the API id of a live check this definition adopts (written by `mac import`).
   * The plan matches it when no live check carries the definition's ownership tag yet, so the
   * next apply adds the tag instead of creating a twin.
   */
  adopt?: string;
  /**
   * Previous logical ids (`renamedFrom`, a string or a list in the file). For checks, a live
   * check tagged with one of them is matched when none carries the new id's tag yet.
   */
  renamedFrom?: string[];
  /** StatusPageService: names the live service may still have (a rename keeps its identity). */
  previousNames?: string[];
}

/** mac.config.yaml, validated. */
export interface ProjectConfig {
  project: string;
  include: string[];
  defaults: { check?: Record<string, unknown> };
  /** Environment variables `${{ env.NAME }}` may read (declared under `env:`, forbidden names left out). */
  env: string[];
}

/** The result of loading a project directory: definitions plus every diagnostic found. */
export interface LoadedProject {
  /** Absolute path of the project directory. */
  dir: string;
  config: ProjectConfig;
  /** Definition files that were read, relative to dir. */
  files: string[];
  definitions: Definition[];
  diagnostics: Diagnostic[];
}
