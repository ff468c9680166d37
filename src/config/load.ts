/**
 * The load stage: mac.config.yaml, file discovery, YAML / *.mac.ts reading, defaults,
 * `${{ env.NAME }}` interpolation, then validation in two phases (structure, rules).
 * Offline: no HTTP. Every problem becomes a diagnostic; none is thrown.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { DEFINITIONS } from '../schema/definitions.js';
import { CHECK_KINDS, type Kind } from '../schema/kinds.js';
import { UsageError } from '../errors.js';
import type { Diagnostic, LoadedProject } from './types.js';
import { discoverFiles } from './discover.js';
import { readProjectConfig } from './project-config.js';
import { isRecord, type SourceDocument } from './source.js';
import { parseYaml } from './yaml-source.js';
import { loadTsFile } from './ts-source.js';
import { interpolateEnv } from './interpolate.js';
import { checkStructure } from './structure.js';
import { resolveDocument, type ResolvedDocument } from './resolve.js';
import { PROJECT_RULES } from './rules.js';

/** Options of loadProject: the environment `${{ env.NAME }}` reads (the engine never reads process.env). */
export interface LoadOptions {
  env: Record<string, string | undefined>;
  /** false: a `*.mac.ts` file is code, so it is refused (a diagnostic naming it) and never loaded. Default true. */
  typescript?: boolean;
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

  const diagnostics: Diagnostic[] = [];
  const { config, source: configSource } = await readProjectConfig(absDir, options.env, diagnostics);
  const files = await discoverFiles(absDir, config.include);

  const limit = pLimit(32);
  const perFile = await Promise.all(
    files.map((file) =>
      limit(async () => {
        const abs = join(absDir, file);
        if (file.endsWith('.ts') && options.typescript === false) {
          diagnostics.push({ file, line: 1, col: 1, severity: 'error', path: '', message: '*.mac.ts files are code and are refused here (--no-typescript)' });
          return [];
        }
        const text = await readFile(abs, 'utf8');
        if (file.endsWith('.ts')) return loadTsFile(abs, text, file, dirname(abs), diagnostics);
        const parsed = parseYaml(text, file, dirname(abs));
        diagnostics.push(...parsed.diagnostics);
        return parsed.documents;
      }),
    ),
  );

  const declared = new Set<string>();
  const resolving: Promise<ResolvedDocument>[] = [];
  for (const documents of perFile) {
    for (let source of documents) {
      noteDeclared(source.data, declared);
      if (config.defaults.check && configSource) source = withCheckDefaults(source, config.defaults.check, configSource);
      const envSources = interpolateEnv(source, options.env, diagnostics);
      const structured = checkStructure(source, diagnostics);
      if (structured) resolving.push(resolveDocument(structured, envSources, diagnostics));
    }
  }
  const resolved = await Promise.all(resolving);
  for (const rule of PROJECT_RULES) rule(resolved, diagnostics, { declared });

  return { dir: absDir, config, files, definitions: resolved.map((r) => r.definition), diagnostics: sortDiagnostics(diagnostics) };
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
