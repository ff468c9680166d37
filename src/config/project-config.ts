/** Reads and validates mac.config.yaml. */
import { join } from 'node:path';
import { ProjectConfigSchema, DEFAULT_INCLUDE } from '../schema/config.js';
import type { Diagnostic, ProjectConfig } from './types.js';
import { CONFIG_FILE } from './discover.js';
import { errorAt, type SourceDocument } from './source.js';
import { isRecord } from '../json/values.js';
import { parseYaml } from './yaml-source.js';
import { ENV_NAME, forbiddenEnvName, interpolateEnv, judgeUnsetEnv } from './interpolate.js';
import { UsageError } from '../errors.js';
import { issueDiagnostics } from './structure.js';
import { DEFINITION_FILE_LIMIT, describeProblem, projectRoot, readProjectFile } from './files.js';

/** The project's configuration, and its source document for positions of defaulted fields. */
export interface ConfigSource {
  config: ProjectConfig;
  source?: SourceDocument;
}

/**
 * Reads `dir/mac.config.yaml`. Problems become diagnostics, and loading goes on with the
 * default include and no defaults so that the definitions are still checked.
 */
export async function readProjectConfig(dir: string, env: Record<string, string | undefined>, diagnostics: Diagnostic[]): Promise<ConfigSource> {
  const fallback: ProjectConfig = { project: '', include: DEFAULT_INCLUDE, defaults: {}, env: [] };
  // Read as any definition file: inside the project with symlinks followed, regular, at most 8 MiB, UTF-8.
  const read = await readProjectFile(await projectRoot(dir), join(dir, CONFIG_FILE), DEFINITION_FILE_LIMIT);
  if (!read.ok && read.problem.kind === 'missing') {
    // Without its config a directory is not a mac project: checking every YAML file below it
    // (a home directory, /tmp) would bury the one useful message under thousands.
    throw new UsageError(`no ${CONFIG_FILE} in ${dir}`, {
      hint: `give the directory that holds ${CONFIG_FILE}, or create one with at least "project: <name>"`,
    });
  }
  if (!read.ok) {
    const at = read.problem.kind === 'not-utf8' ? { file: CONFIG_FILE, line: read.problem.line, col: read.problem.col } : { file: CONFIG_FILE, line: 1, col: 1 };
    diagnostics.push(errorAt(at, '', describeProblem(CONFIG_FILE, read.problem)));
    return { config: fallback };
  }
  const text = read.text;
  const parsed = parseYaml(text, CONFIG_FILE, dir);
  diagnostics.push(...parsed.diagnostics);
  const source = parsed.documents[0];
  if (!source) {
    if (parsed.diagnostics.length === 0) diagnostics.push(errorAt({ file: CONFIG_FILE, line: 1, col: 1 }, 'project', 'is required'));
    return { config: fallback };
  }
  // `env:` is read first and never interpolated: it says what interpolation may read.
  const declared = declaredEnv(source, diagnostics);
  // Defaults are interpolated with each check (so their env sources are recorded there); here only the rest.
  const defaults = isRecord(source.data) ? source.data.defaults : undefined;
  const envList = isRecord(source.data) ? source.data.env : undefined;
  if (isRecord(source.data)) {
    delete source.data.defaults;
    delete source.data.env;
  }
  const interpolated = interpolateEnv(source, env, { declared: new Set(declared), identityFields: () => ['project', 'include', 'exclude'] }, diagnostics);
  judgeUnsetEnv(interpolated.unset, undefined, diagnostics);
  if (isRecord(source.data) && defaults !== undefined) source.data.defaults = defaults;
  if (isRecord(source.data) && envList !== undefined) source.data.env = envList;

  const result = ProjectConfigSchema.safeParse(source.data);
  if (!result.success) {
    for (const issue of result.error.issues) diagnostics.push(...issueDiagnostics(issue, source, ProjectConfigSchema, CONFIG_FILE));
    const data = isRecord(source.data) ? source.data : {};
    return {
      config: {
        ...fallback,
        env: declared,
        project: typeof data.project === 'string' ? data.project : '',
        // A usable include still selects the files to check, so their problems show in the same run.
        include: Array.isArray(data.include) && data.include.length > 0 && data.include.every((g) => typeof g === 'string') ? (data.include as string[]) : DEFAULT_INCLUDE,
      },
      source,
    };
  }
  const { project, include, defaults: parsedDefaults } = result.data;
  return {
    config: { project, include: include ?? DEFAULT_INCLUDE, defaults: parsedDefaults?.check ? { check: parsedDefaults.check } : {}, env: declared },
    source,
  };
}

/**
 * The names under `env:` that definitions may read: valid environment names that are not
 * forbidden. A forbidden name is a diagnostic at its entry (and stays unreadable); the shape of
 * the list itself is checked by the schema.
 */
function declaredEnv(source: SourceDocument, diagnostics: Diagnostic[]): string[] {
  const list = isRecord(source.data) ? source.data.env : undefined;
  if (!Array.isArray(list)) return [];
  const names: string[] = [];
  list.forEach((name, i) => {
    if (typeof name !== 'string' || !ENV_NAME.test(name)) return;
    const forbidden = forbiddenEnvName(name);
    if (forbidden !== undefined) {
      diagnostics.push(errorAt(source.locate(['env', i]), ['env', i], `${name} cannot be declared: ${forbidden}; definitions never read it`, `remove ${name} from env:`));
      return;
    }
    names.push(name);
  });
  return names;
}
