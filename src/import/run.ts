import { constants, existsSync, lstatSync } from 'node:fs';
import { lstat, mkdir, open, readFile, realpath } from 'node:fs/promises';
import { isScalar, isSeq, parseDocument } from 'yaml';
import { basename, join, sep } from 'node:path';
import type { ApiClient } from '../api/index.js';
import { formatDiagnostic } from '../config/format.js';
import type { Diagnostic, LoadedProject } from '../config/types.js';
import { CONFIG_FILE, discoverProject } from '../config/discover.js';
import { typescriptRefused } from '../config/load.js';
import { DEFAULT_INCLUDE } from '../schema/config.js';
import { MacError, UsageError, ValidationFailed } from '../errors.js';
import { KIND_SPECS } from '../kinds/index.js';
import { ownershipTag } from '../plan/ownership.js';
import type { Plan } from '../plan/types.js';
import { isCheckKind, isOwnedKind, type Kind } from '../schema/kinds.js';
import { assignIds, type Skipped } from './assign.js';
import { toDefinition, type EnvPlaceholder, type ImportedDoc, type RefIndex } from './convert.js';
import { existingOf, matchDefined, remoteKey, type Defined, type ExistingProject } from './existing.js';
import { fetchLive, type LiveAccount, type UnsupportedCheck } from './fetch.js';
import { EnvNameAllocator, slugify } from './ids.js';
import { layout, relativeRef, renderDocument, type OutFile } from './layout.js';
import { CONFIG_SCHEMA_FILE, generateJsonSchemas, schemaFileName, schemaFileText } from '../schema/json-schema.js';
import { judgeRoundTrip, type RoundTrip, type WrittenResource } from './verify.js';

/** Where the JSON Schemas named by written files live, relative to the project directory. */
const SCHEMA_DIR = 'schemas';

/** The stages import builds on, passed in so that import depends only on their contracts. */
export interface ImportStages {
  /** Loads and validates a project directory (`${{ env.NAME }}` read from `env`). */
  load(dir: string, env: Record<string, string | undefined>): Promise<LoadedProject>;
  /** Plans a loaded project against the account of `client` (no prune). */
  plan(project: LoadedProject, client: ApiClient): Promise<Plan>;
}

/** Typed options of an import run. */
export interface ImportOptions {
  /** Absolute path of the project directory written to (created when missing). */
  dir: string;
  kinds: Kind[];
  /** Project name for a new mac.config.yaml; default: the directory's name. */
  project?: string;
  /** The environment existing definitions are loaded with. */
  env: Record<string, string | undefined>;
  client: ApiClient;
  /** Lists fetched at once. */
  concurrency: number;
  /** false (--no-typescript): a directory holding *.mac.ts files is refused before anything is loaded or written. */
  typescript?: boolean;
  onProgress?(text: string): void;
}

/** What an import did, for the report. */
export interface ImportResult {
  project: string;
  configWritten: boolean;
  /** Every file written, definitions first. */
  files: OutFile[];
  imported: Array<{ kind: Kind; id: string }>;
  alreadyDefined: number;
  skipped: Skipped[];
  unsupported: UnsupportedCheck[];
  /** Environment names to set; values are never part of a result. */
  env: Array<Omit<EnvPlaceholder, 'value'> & { unreadable: boolean }>;
  roundTrip: RoundTrip;
}

// What an unreadable secret is loaded as for the round-trip plan: the plan never compares it,
// and import never reads the real value (not even from its own environment).
const UNREAD_SECRET = 'mac-import: secret value not read';

/**
 * The import pipeline: read the project (if any), fetch the account, match what is already
 * defined, convert the rest, write it without overwriting anything, then plan the directory
 * against the account and judge the result.
 */
export async function runImport(options: ImportOptions, stages: ImportStages): Promise<ImportResult> {
  const progress = options.onProgress ?? (() => {});
  const configPath = join(options.dir, CONFIG_FILE);
  const hasConfig = existsSync(configPath);
  // An existing project is refused by the load stage itself; a new one must not hold *.mac.ts files
  // either, since the written directory is loaded again for the round-trip plan.
  if (!hasConfig && options.typescript === false) await refuseTypeScript(options.dir);
  const existing = hasConfig ? await readExisting(options, stages) : newProject(options);

  // Checks reference channels and snippets: their ids are needed even when only checks are imported.
  const fetchKinds = new Set(options.kinds);
  if (options.kinds.some(isCheckKind)) for (const k of ['AlertChannel', 'Snippet', 'PrivateLocation', 'CheckGroup', 'StatusPageService'] as const) fetchKinds.add(k);
  // A card names its services by logical id only (there is no raw form): importing status pages
  // imports the services they show too.
  const kinds = options.kinds.includes('StatusPage') && !options.kinds.includes('StatusPageService') ? [...options.kinds, 'StatusPageService' as const] : options.kinds;
  if (kinds !== options.kinds) fetchKinds.add('StatusPageService');
  progress(`reading the account (${[...fetchKinds].join(', ')})`);
  const live = await fetchLive(options.client, [...fetchKinds], { concurrency: options.concurrency, onProgress: progress });

  const defined = matchDefined(existing, live);
  const assignment = assignIds(existing.project, kinds, live, defined, existing.definitions);
  const refs = refIndex(live, defined, assignment.assigned);
  const envAllocator = new EnvNameAllocator();
  const docs: ImportedDoc[] = assignment.assigned.map(({ item, id }) => {
    const body = isOwnedKind(item.kind) ? withoutOwnTag(item.body, existing.project) : item.body;
    const converted = toDefinition(item.kind, body, id, {
      spec: KIND_SPECS[item.kind],
      projectDefaults: isCheckKind(item.kind) ? existing.checkDefaults : {},
      refs,
      envNames: envAllocator,
    });
    // An untagged check is adopted explicitly: the plan matches it by its API id until apply tags it.
    if (isOwnedKind(item.kind) && !hasOwnTag(item.body, existing.project)) converted.doc = withAdopt(converted.doc, String(item.remoteId));
    return converted;
  });

  // lstat: a symlink, even a dangling one, takes its name (import never writes through it).
  const exists = (p: string) => taken(join(options.dir, p));
  const files = layout(docs, { exists, schemaRef: (kind, from) => relativeRef(from, `${SCHEMA_DIR}/${schemaFileName(kind)}`) });
  files.push(...schemaFiles(files, !hasConfig, exists));
  const env = docs.flatMap((d) => d.env);
  const envNames = env.map((p) => p.name);
  if (!hasConfig) {
    const schema = `# yaml-language-server: $schema=./${SCHEMA_DIR}/${CONFIG_SCHEMA_FILE}\n`;
    files.push({ path: CONFIG_FILE, content: `${schema}${renderDocument({ project: existing.project, ...(envNames.length > 0 ? { env: envNames } : {}) })}` });
  }
  progress(`writing ${docs.length} definitions in ${files.length} files`);
  await writeFiles(options.dir, files);
  // Every placeholder's variable is declared, or the definitions could not read it.
  if (hasConfig) await declareEnv(configPath, envNames);

  progress('planning the written definitions against the account');
  const imported = docs.map((doc, i) => ({ doc, liveTags: tagsOf(withoutOwnTag(assignment.assigned[i].item.body, existing.project)) }));
  const roundTrip = await proveRoundTrip(options, stages, imported, env, existing.project);
  return {
    project: existing.project,
    configWritten: !hasConfig,
    files,
    imported: docs.map((d) => ({ kind: d.kind, id: d.id })),
    alreadyDefined: assignment.alreadyDefined,
    skipped: assignment.skipped,
    unsupported: options.kinds.some(isCheckKind) ? live.unsupported : [],
    env: env.map(({ value, ...rest }) => ({ ...rest, unreadable: value === undefined })),
    roundTrip,
  };
}

async function readExisting(options: ImportOptions, stages: ImportStages): Promise<ExistingProject> {
  const loaded = await stages.load(options.dir, options.env);
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    throw new ValidationFailed(`${options.dir} holds invalid definitions; import writes nothing into an invalid project:\n${listDiagnostics(errors)}`, {
      hint: 'fix them first; definitions that name ${{ env.NAME }} need NAME set, as for mac plan',
    });
  }
  if (options.project !== undefined && options.project !== loaded.config.project) {
    throw new UsageError(`--project ${options.project} differs from the project "${loaded.config.project}" of ${CONFIG_FILE}`, {
      hint: 'leave --project out when importing into an existing project',
    });
  }
  return existingOf(loaded);
}

function listDiagnostics(diagnostics: Diagnostic[]): string {
  return diagnostics.map((d) => `  ${formatDiagnostic(d).replace(/\n/g, '\n  ')}`).join('\n');
}

function newProject(options: ImportOptions): ExistingProject {
  const project = options.project ?? slugify(basename(options.dir));
  if (!/^[a-z0-9-]+$/.test(project)) {
    throw new UsageError(`"${project}" cannot be a project name`, { hint: 'pass --project NAME with lowercase letters, digits and -' });
  }
  return { project, checkDefaults: {}, definitions: [] };
}

/** Live API ids of channels and snippets -> logical ids, from the project and from this import. */
function refIndex(live: LiveAccount, defined: Defined, assigned: Array<{ item: { kind: Kind; remoteId: string | number }; id: string }>): RefIndex {
  const ids = new Map(defined.byRemote);
  for (const a of assigned) ids.set(remoteKey(a.item.kind, a.item.remoteId), a.id);
  const known = (kind: Kind) => (remoteId: number | string) =>
    live.items.get(kind)?.some((i) => i.remoteId === remoteId) ? ids.get(remoteKey(kind, remoteId)) : undefined;
  // Checks name private locations by slug: a slug of a location the project defines becomes its id.
  const slugs = new Map<string, string>();
  for (const item of live.items.get('PrivateLocation') ?? []) {
    const id = ids.get(remoteKey('PrivateLocation', item.remoteId));
    if (id !== undefined && typeof item.body.slugName === 'string') slugs.set(item.body.slugName, id);
  }
  return { alertChannel: known('AlertChannel'), snippet: known('Snippet'), checkGroup: known('CheckGroup'), service: known('StatusPageService'), privateLocation: (slug) => slugs.get(slug) };
}

function hasOwnTag(body: Record<string, unknown>, project: string): boolean {
  return Array.isArray(body.tags) && body.tags.some((t) => typeof t === 'string' && t.startsWith(`mac:${project}/`));
}

/** The plan adds the ownership tag itself; a definition never spells it. */
function withoutOwnTag(body: Record<string, unknown>, project: string): Record<string, unknown> {
  if (!Array.isArray(body.tags)) return body;
  return { ...body, tags: body.tags.filter((t) => !(typeof t === 'string' && t.startsWith(`mac:${project}/`))) };
}

function tagsOf(body: Record<string, unknown>): string[] | undefined {
  return Array.isArray(body.tags) ? body.tags.filter((t): t is string => typeof t === 'string') : undefined;
}

/** `adopt` goes right after the id, where a reviewer sees it. */
function withAdopt(doc: Record<string, unknown>, remoteId: string): Record<string, unknown> {
  const { kind, id, ...rest } = doc;
  return { kind, id, adopt: remoteId, ...rest };
}

/**
 * The JSON Schemas the written files name in their `$schema` line, from this build of mac;
 * a schema file already in the project is left as it is (`mac schemas` refreshes them).
 */
function schemaFiles(files: OutFile[], withConfig: boolean, exists: (path: string) => boolean): OutFile[] {
  const all = generateJsonSchemas();
  const names = files.flatMap((f) => (f.kind ? [schemaFileName(f.kind)] : []));
  if (withConfig) names.push(CONFIG_SCHEMA_FILE);
  return [...new Set(names)]
    .map((name) => ({ path: `${SCHEMA_DIR}/${name}`, content: schemaFileText(all[name]) }))
    .filter((f) => !exists(f.path));
}

function taken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

async function refuseTypeScript(dir: string): Promise<void> {
  const found = await discoverProject(dir, DEFAULT_INCLUDE).catch(() => undefined);
  const refused = [...new Set([...(found?.files.filter((f) => f.endsWith('.ts')) ?? []), ...(found?.typescript ?? [])])].sort();
  if (refused.length === 0) return;
  const diagnostics = refused.map((file) => typescriptRefused(file));
  throw new ValidationFailed(`${dir} holds TypeScript definitions; import writes nothing there with --no-typescript:\n${listDiagnostics(diagnostics)}`, { diagnostics });
}

/**
 * Writes the files under `dir` (the --out directory), never through a symlink that leads outside
 * it: each folder on the way is created one level at a time or, when it exists, must resolve
 * (symlinks followed) to a folder inside `dir`; each file is created with O_EXCL | O_NOFOLLOW, so
 * an existing file or symlink at its name is never written through.
 */
async function writeFiles(dir: string, files: OutFile[]): Promise<void> {
  const root = await realpath(dir);
  const checked = new Map<string, string>();
  // Every folder first: a refused one stops the import before any file is written.
  const targets: string[] = [];
  for (const file of files) {
    const parts = file.path.split('/');
    let current = root;
    for (const part of parts.slice(0, -1)) current = await enterFolder(root, current, part, checked);
    targets.push(join(current, parts[parts.length - 1]));
  }
  for (const [i, file] of files.entries()) await writeNew(targets[i], file.content);
}

/** The real path of folder `name` in `parent` (created when missing), refused when it leads outside `root`. */
async function enterFolder(root: string, parent: string, name: string, checked: Map<string, string>): Promise<string> {
  const path = join(parent, name);
  const known = checked.get(path);
  if (known !== undefined) return known;
  if (name === '' || name === '.' || name === '..') throw new MacError(`import refuses to write through the path segment "${name}" in ${path}`);
  const existing = await lstat(path).catch(() => undefined);
  if (!existing) {
    try {
      await mkdir(path);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw new MacError(`cannot create ${path}: ${(cause as Error).message}`, { cause });
    }
  }
  const real = await realpath(path);
  if (!real.startsWith(root + sep)) {
    throw new MacError(`${path} leads outside ${root} (a symlink); import writes nothing through it`, {
      hint: 'remove the symlink or choose another --out directory',
    });
  }
  const stats = await lstat(real);
  if (!stats.isDirectory()) throw new MacError(`${path} is not a folder; import cannot write into it`);
  checked.set(path, real);
  return real;
}

/**
 * Creates a file that must not exist: O_EXCL makes the no-overwrite promise hold even against a
 * race, and with O_NOFOLLOW a symlink at the name (even a dangling one) is never followed.
 */
async function writeNew(path: string, content: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ELOOP') {
      throw new MacError(`${path} appeared while import was writing; it was left untouched`, { cause, hint: 'run mac import again' });
    }
    throw new MacError(`cannot write ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

async function proveRoundTrip(
  options: ImportOptions,
  stages: ImportStages,
  imported: Array<{ doc: ImportedDoc; liveTags?: string[] }>,
  env: EnvPlaceholder[],
  project: string,
): Promise<RoundTrip> {
  const planEnv: Record<string, string | undefined> = { ...options.env };
  for (const p of env) planEnv[p.name] = p.value ?? UNREAD_SECRET;
  const loaded = await stages.load(options.dir, planEnv);
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    throw new ValidationFailed(`the written definitions do not validate:\n${listDiagnostics(errors)}`, {
      hint: 'this is a bug in mac import; please report it with the files it wrote',
    });
  }
  const plan = await stages.plan(loaded, options.client);
  const written: WrittenResource[] = imported.map(({ doc, liveTags }) => ({ kind: doc.kind, id: doc.id, liveTags }));
  return judgeRoundTrip(plan, written, (id) => ownershipTag(project, id));
}

/**
 * Adds `names` to the `env:` list of an existing mac.config.yaml (comments and layout kept),
 * leaving names already declared alone; the only change import makes to a file it did not write.
 */
async function declareEnv(configPath: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  // The config is the one file import rewrites: never through a symlink (O_NOFOLLOW both ways).
  const stats = await lstat(configPath);
  if (!stats.isFile()) throw new MacError(`${configPath} is not a regular file (a symlink?); import leaves it alone`, { hint: 'declare the names under env: by hand' });
  const text = await readFile(configPath, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW });
  const doc = parseDocument(text);
  const current = doc.get('env');
  const declared = new Set(isSeq(current) ? current.items.map((i) => String(isScalar(i) ? i.value : i)) : []);
  const added = names.filter((n) => !declared.has(n));
  if (added.length === 0) return;
  if (isSeq(current)) for (const n of added) current.add(doc.createNode(n));
  else doc.set('env', doc.createNode([...added]));
  const handle = await open(configPath, constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW);
  try {
    await handle.writeFile(doc.toString({ lineWidth: 0 }));
  } finally {
    await handle.close();
  }
}
