/**
 * The load stage: mac.config.yaml, file discovery, YAML / *.mac.ts reading, defaults,
 * `${{ env.NAME }}` interpolation, then validation in two phases (structure, rules).
 * Offline: no HTTP. Every problem becomes a diagnostic; none is thrown.
 */
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { DEFINITIONS } from '../schema/definitions.js';
import { CHECK_KINDS, KINDS, type Kind } from '../schema/kinds.js';
import { UsageError } from '../errors.js';
import type { Diagnostic, LoadedProject } from './types.js';
import { discoverProject } from './discover.js';
import { DEFINITION_FILE_LIMIT, describeProblem, projectRoot, readProjectFile } from './files.js';
import { readProjectConfig } from './project-config.js';
import { errorAt, type SourceDocument } from './source.js';
import { isRecord } from '../json/values.js';
import { yamlSources } from './yaml-source.js';
import { parseWorkers, parseYamlFiles } from './yaml-parallel.js';
import { loadTsFile } from './ts-source.js';
import { interpolateEnv, judgeUnsetEnv } from './interpolate.js';
import { checkStructure } from './structure.js';
import { resolveDocument, type ResolvedDocument } from './resolve.js';
import { PROJECT_RULES } from './rules.js';

/** Options of loadProject. */
export interface LoadOptions {
  /** The environment `${{ env.NAME }}` reads (the engine never reads process.env). */
  env: Record<string, string | undefined>;
  /**
   * Whether `*.mac.ts` files may be loaded (default true). A *.mac.ts file is code and runs when
   * loaded; with false, a project holding one (or any `.ts` definition file) is refused with a
   * diagnostic naming each file, before any file is read (`--no-typescript`, the Action's `typescript: deny`).
   */
  typescript?: boolean;
  /** What refused TypeScript, as the refusal names it (default `--no-typescript`; the Action: its input). */
  typescriptRefusedBy?: string;
  /**
   * Called once every definition file is read, before any is parsed, with the kinds the files
   * appear to define (`kind:` keys found in their text; a guess, never a validation), or 'all'
   * when their text cannot tell (a *.mac.ts file). `mac plan` starts fetching with it.
   */
  onFilesRead?: (kinds: ReadonlySet<Kind> | 'all') => void;
  /**
   * Threads that parse YAML besides the main thread; default: none for a small project, else
   * one per core beyond the first (at most 3). The loaded project is the same either way.
   */
  parseWorkers?: number;
}

/** Field names each check kind accepts, for merging `defaults.check` under it. */
const CHECK_FIELDS = new Map<Kind, Set<string>>(
  CHECK_KINDS.map((kind) => [kind, new Set(Object.keys((DEFINITIONS[kind].schema as unknown as { shape: object }).shape))]),
);

/** Loads and validates the project in `dir`. Throws (UsageError) only when `dir` is not a directory or has no mac.config.yaml. */
export async function loadProject(dir: string, options: LoadOptions): Promise<LoadedProject> {
  const absDir = resolve(dir);
  const isDir = await stat(absDir).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw new UsageError(`${dir} is not a directory`, { hint: 'give the directory that holds mac.config.yaml' });

  const root = await projectRoot(absDir);
  const diagnostics: Diagnostic[] = [];
  const { config, source: configSource } = await readProjectConfig(absDir, options.env, diagnostics);
  const discovered = await discoverProject(absDir, config.include);
  const files = discovered.files;

  if (options.typescript === false) {
    const refused = [...new Set([...files.filter((f) => f.endsWith('.ts')), ...discovered.typescript])].sort();
    if (refused.length > 0) {
      for (const file of refused) diagnostics.push(typescriptRefused(file, options.typescriptRefusedBy));
      return { dir: absDir, config, files, definitions: [], diagnostics: sortDiagnostics(diagnostics) };
    }
  }

  // Every file is read first (quick), then parsed (most of the time): what the files appear to
  // define is known early, and `mac plan` fetches it while they are parsed.
  const limit = pLimit(32);
  const texts = await Promise.all(
    files.map((file) =>
      limit(async () => {
        const abs = join(absDir, file);
        const read = await readProjectFile(root, abs, DEFINITION_FILE_LIMIT);
        if (!read.ok) {
          const at = read.problem.kind === 'not-utf8' ? { file, line: read.problem.line, col: read.problem.col } : { file, line: 1, col: 1 };
          diagnostics.push(errorAt(at, '', describeProblem(file, read.problem), definitionFileHint(read.problem.kind)));
          return undefined;
        }
        return read.text;
      }),
    ),
  );
  // A project already known to be invalid (its config, a file that cannot be read) is not fetched for.
  if (!diagnostics.some((d) => d.severity === 'error')) options.onFilesRead?.(files.some((f) => f.endsWith('.ts')) ? 'all' : kindsNamed(texts));
  // YAML is parsed on every core when the project is large (yaml-parallel.ts), and each file is
  // loaded (checked, interpolated, resolved) on the main thread, in file order, as soon as it is
  // parsed: the threads parse the next files meanwhile. Between files, the requests started
  // meanwhile are sent and their answers taken.
  const yamlInputs = files.map((file, i) => (texts[i] === undefined || file.endsWith('.ts') ? undefined : { text: texts[i]!, file }));
  const yamlBytes = yamlInputs.reduce((n, input) => n + (input?.text.length ?? 0), 0);
  const workers = options.parseWorkers ?? parseWorkers(yamlBytes);
  const between = options.onFilesRead ? () => new Promise<void>((r) => setImmediate(r)) : undefined;
  const declared = new Set<string>();
  const policy = { declared: new Set(config.env) };
  const resolving: Promise<ResolvedDocument>[] = [];
  const loadDocuments = (documents: SourceDocument[]) => {
    for (let source of documents) {
      noteDeclared(source.data, declared);
      if (config.defaults.check && configSource) source = withCheckDefaults(source, config.defaults.check, configSource);
      const interpolated = interpolateEnv(source, options.env, policy, diagnostics);
      const structured = checkStructure(source, diagnostics);
      if (!structured) {
        judgeUnsetEnv(interpolated.unset, undefined, diagnostics);
        continue;
      }
      resolving.push(
        resolveDocument(structured, interpolated.envSources, diagnostics, root).then((r) => {
          // Unset variables are judged once the definition says which of its values are masked.
          const missing = judgeUnsetEnv(interpolated.unset, r.definition, diagnostics);
          if (interpolated.envPaths.length > 0) r.definition.envPaths = interpolated.envPaths;
          if (Object.keys(missing).length > 0) r.definition.missingEnv = missing;
          return r;
        }),
      );
    }
  };
  await parseYamlFiles(yamlInputs, workers, between, undefined, async (i, parsedYaml) => {
    const file = files[i]!;
    const text = texts[i];
    // The text is kept only as long as a position may be asked of it (yamlSources holds it).
    texts[i] = undefined;
    if (text === undefined) return;
    const abs = join(absDir, file);
    if (file.endsWith('.ts')) {
      loadDocuments(await loadTsFile(abs, text, file, dirname(abs), diagnostics));
      return;
    }
    const parsed = yamlSources(parsedYaml!, text, file, dirname(abs));
    diagnostics.push(...parsed.diagnostics);
    loadDocuments(parsed.documents);
  });
  const resolved = await Promise.all(resolving);
  for (const rule of PROJECT_RULES) rule(resolved, diagnostics, { declared });

  return { dir: absDir, config, files, definitions: resolved.map((r) => r.definition), diagnostics: sortDiagnostics(diagnostics) };
}

const KIND_NAMES = new Set<string>(KINDS);
// `kind: X` / `"kind": "X"` anywhere in a file, block or flow style.
const KIND_KEY = /(?:^|[\s{,])["']?kind["']?[ \t]*:[ \t]*["']?([A-Za-z]+)/g;

/** The kinds the texts name in `kind:` keys (a kind named through an alias is missed: the plan fetches it after loading). */
export function kindsNamed(texts: ReadonlyArray<string | undefined>): Set<Kind> {
  const kinds = new Set<Kind>();
  for (const text of texts) {
    if (text === undefined) continue;
    for (const m of text.matchAll(KIND_KEY)) if (KIND_NAMES.has(m[1])) kinds.add(m[1] as Kind);
  }
  return kinds;
}

/** The diagnostic of a TypeScript definition file refused by `typescript: false`. */
export function typescriptRefused(file: string, by = '--no-typescript'): Diagnostic {
  return errorAt(
    { file, line: 1, col: 1 },
    '',
    `TypeScript definitions are refused here (${by}): a *.mac.ts file is code and would run when loaded`,
    'write the definitions as YAML, or load this project only where its code is trusted',
  );
}

function definitionFileHint(kind: string): string | undefined {
  if (kind === 'outside') return 'a definition file reached through a symlink must lie inside the directory of mac.config.yaml';
  if (kind === 'too-large') return `definition files may hold at most ${DEFINITION_FILE_LIMIT / (1024 * 1024)} MiB; split it into several files`;
  if (kind === 'not-utf8') return 'save the file as UTF-8';
  return undefined;
}

function noteDeclared(data: unknown, declared: Set<string>): void {
  if (!isRecord(data) || typeof data.kind !== 'string') return;
  const id = data.kind === 'EnvironmentVariable' ? data.key : data.id;
  if (typeof id === 'string') declared.add(`${data.kind}\0${id}`);
}

/**
 * Merges `defaults.check` under a check document (its own values win, top-level fields only,
 * only fields its kind has). Positions of merged fields point into mac.config.yaml.
 */
function withCheckDefaults(source: SourceDocument, defaults: Record<string, unknown>, configSource: SourceDocument): SourceDocument {
  const data = source.data;
  if (!isRecord(data) || data.state === 'absent') return source;
  const fields = CHECK_FIELDS.get(data.kind as Kind);
  if (!fields) return source;
  const merged = new Set<string>();
  for (const key in defaults) {
    if (data[key] === undefined && fields.has(key)) {
      data[key] = structuredClone(defaults[key]);
      merged.add(key);
    }
  }
  if (merged.size === 0) return source;
  return {
    ...source,
    locate: (path, key) =>
      typeof path[0] === 'string' && merged.has(path[0]) ? configSource.locate(['defaults', 'check', ...path], key) : source.locate(path, key),
  };
}

/** Diagnostics in file, line, column order, without repeats (a default's problem shows once). */
function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics
    .filter((d) => {
      const k = `${d.file}:${d.line}:${d.col}:${d.path}:${d.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.col - b.col));
}
