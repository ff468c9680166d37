/** Turns a structurally valid document into a Definition: API body, references, script files, secrets. */
import { resolve } from 'node:path';
import { DEFINITIONS } from '../schema/definitions.js';
import type { Definition, DefinitionRefs, Diagnostic } from './types.js';
import { errorAt, type SourceDocument } from './source.js';
import type { StructuredDocument } from './structure.js';
import { SCRIPT_FILE_LIMIT, describeProblem, readProjectFile, type FileProblem } from './files.js';

/** A definition with the document it came from (for positions in later rules). */
export interface ResolvedDocument {
  definition: Definition;
  source: SourceDocument;
}

// Definition-only fields: never part of the API body.
const NOT_SPEC = new Set(['kind', 'state', 'id', 'adopt', 'renamedFrom', 'alertChannels', 'setupSnippet', 'tearDownSnippet', 'scriptFile', 'group', 'previousNames']);

/**
 * Builds the Definition of a document; pushes diagnostics for script files and per-kind rules.
 * `root` is the project root with symlinks followed: files a definition names must lie inside it.
 */
export async function resolveDocument(
  doc: StructuredDocument,
  envSources: Record<string, string>,
  diagnostics: Diagnostic[],
  root: string,
): Promise<ResolvedDocument> {
  const { source, kind, value } = doc;
  const kindSpec = DEFINITIONS[kind];
  const state = value.state === 'absent' ? 'absent' : 'present';
  const spec: Record<string, unknown> = {};
  for (const key in value) if (!NOT_SPEC.has(key)) spec[key] = value[key];

  // A broken script or a failed per-kind rule leaves the structure valid: cross-definition rules still run.
  if (kindSpec.script !== 'none') await resolveScript(source, value, spec, kindSpec.script === 'required' && state === 'present', diagnostics, root);
  if (state === 'present' && kindSpec.rules) {
    for (const issue of kindSpec.rules(spec)) {
      const path = issue.path === '' ? [] : issue.path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      diagnostics.push(errorAt(path.length === 0 ? source.position() : source.locate(path), issue.path, issue.message));
    }
  }

  const refs: DefinitionRefs = {};
  if (Array.isArray(value.alertChannels)) refs.alertChannels = value.alertChannels as string[];
  if (typeof value.setupSnippet === 'string') refs.setupSnippet = value.setupSnippet;
  if (typeof value.tearDownSnippet === 'string') refs.tearDownSnippet = value.tearDownSnippet;
  if (typeof value.group === 'string') refs.group = value.group;
  // privateLocations stays in the spec (raw slugs pass through); ids are resolved when the body is built.
  if (kindSpec.refs.some((r) => r.field === 'privateLocations') && Array.isArray(value.privateLocations)) refs.privateLocations = value.privateLocations as string[];
  const incident = value.triggerIncident as { service?: unknown } | null | undefined;
  if (incident && typeof incident.service === 'string') refs.incidentService = incident.service;
  if (kind === 'StatusPage' && Array.isArray(value.cards)) {
    refs.cardServices = (value.cards as Array<{ services?: unknown }>).map((c) => (Array.isArray(c.services) ? (c.services as string[]) : []));
  }
  const at = source.position();
  const definition: Definition = {
    file: at.file,
    line: at.line,
    col: at.col,
    kind,
    id: String(value[kindSpec.idField]),
    state,
    spec,
    refs,
    secretPaths: kindSpec.secretPaths(spec),
    envSources,
    ...(typeof value.adopt === 'string' ? { adopt: value.adopt } : {}),
    ...renamedFromOf(value.renamedFrom),
    ...(Array.isArray(value.previousNames) ? { previousNames: value.previousNames as string[] } : {}),
  };
  return { definition, source };
}

/** `renamedFrom` as a list (the schema has checked its ids). */
function renamedFromOf(raw: unknown): { renamedFrom?: string[] } {
  if (typeof raw === 'string') return { renamedFrom: [raw] };
  return Array.isArray(raw) ? { renamedFrom: raw.map(String) } : {};
}

/** Reads `scriptFile` into `spec.script`; false when a diagnostic was pushed. */
async function resolveScript(
  source: SourceDocument,
  value: Record<string, unknown>,
  spec: Record<string, unknown>,
  required: boolean,
  diagnostics: Diagnostic[],
  root: string,
): Promise<boolean> {
  const scriptFile = value.scriptFile;
  if (typeof scriptFile !== 'string') {
    if (required && value.script === undefined) {
      diagnostics.push(errorAt(source.position(), 'script', 'is required', 'set script, or scriptFile to a file holding it'));
      return false;
    }
    return true;
  }
  if (value.script !== undefined) {
    diagnostics.push(errorAt(source.locate(['scriptFile'], true), 'scriptFile', 'script and scriptFile are both set', 'keep one of them'));
    return false;
  }
  // Followed symlinks and all, the file must lie inside the project, be a regular file and hold at most 1 MiB.
  const read = await readProjectFile(root, resolve(source.dir, scriptFile), SCRIPT_FILE_LIMIT);
  if (!read.ok) {
    diagnostics.push(errorAt(source.locate(['scriptFile']), 'scriptFile', describeProblem(scriptFile, read.problem), scriptFileHint(read.problem)));
    return false;
  }
  spec.script = read.text;
  if (required && spec.script === '') {
    diagnostics.push(errorAt(source.locate(['scriptFile']), 'scriptFile', `"${scriptFile}" is empty; the script must not be empty`));
    return false;
  }
  return true;
}

function scriptFileHint(problem: FileProblem): string {
  switch (problem.kind) {
    case 'outside':
      return 'a file a definition names must lie inside the directory of mac.config.yaml, with symlinks followed';
    case 'not-regular':
      return 'scriptFile must name a regular file';
    case 'too-large':
      return 'the API takes scripts of at most 1 MiB';
    case 'not-utf8':
      return 'save the script as UTF-8';
    default:
      return 'the path is relative to the definition file';
  }
}
