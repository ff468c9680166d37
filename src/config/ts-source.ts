/** Loads `*.mac.ts` files (default export: one definition or an array) with jiti, lazily imported. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Diagnostic, Position } from './types.js';
import { errorAt, plainDataProblem, type SourceDocument } from './source.js';
import { isRecord } from '../json/values.js';

/** Package name a *.mac.ts file imports its helpers from. */
export const PACKAGE_NAME = 'mac-monitoring';

type Jiti = { import<T = unknown>(id: string, opts?: { default?: true }): Promise<T> };
let jiti: Promise<Jiti> | undefined;

// The package's own entry, so that `import { tcpCheck } from 'mac-monitoring'` resolves to this
// very build, in a checkout (src, under tests) and installed (dist) alike.
function packageEntry(): string {
  // The GitHub Action bundle (dist-action/index.mjs) ships the helpers next to itself.
  const bundled = fileURLToPath(new URL('./mac-monitoring.mjs', import.meta.url));
  if (existsSync(bundled)) return bundled;
  const js = fileURLToPath(new URL('../index.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('../index.ts', import.meta.url));
}

async function getJiti(): Promise<Jiti> {
  jiti ??= import('jiti').then(({ createJiti }) =>
    createJiti(import.meta.url, { alias: { [PACKAGE_NAME]: packageEntry() }, moduleCache: false, interopDefault: true }),
  );
  return jiti;
}

/**
 * Imports a *.mac.ts file and returns its definitions as documents. Fields have no source
 * positions in TypeScript; each document points at the line holding its id (else line 1).
 */
export async function loadTsFile(absPath: string, text: string, file: string, dir: string, diagnostics: Diagnostic[]): Promise<SourceDocument[]> {
  let exported: unknown;
  try {
    exported = await (await getJiti()).import(absPath, { default: true });
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    diagnostics.push(errorAt({ file, line: 1, col: 1 }, '', `cannot load ${file}: ${message}`));
    return [];
  }
  const items = Array.isArray(exported) ? exported : [exported];
  if (exported === undefined || items.length === 0) {
    diagnostics.push(errorAt({ file, line: 1, col: 1 }, '', 'a .mac.ts file must export default one definition or an array of them'));
    return [];
  }
  const documents: SourceDocument[] = [];
  for (const item of items) {
    const at = positionOfId(text, file, item);
    let data: unknown;
    try {
      // Loading rewrites documents in place (defaults, interpolation): never touch the module's objects.
      data = structuredClone(item);
    } catch {
      diagnostics.push(errorAt(at, '', 'a definition must be plain data (no functions or class instances)'));
      continue;
    }
    // What YAML refuses at parse time (reserved keys such as __proto__, cycles, deep nesting) is refused here too.
    const problem = plainDataProblem(data);
    if (problem) {
      diagnostics.push(errorAt(at, problem.path, problem.message));
      continue;
    }
    documents.push({ file, dir, data, position: () => at, locate: () => at });
  }
  return documents;
}

function positionOfId(text: string, file: string, data: unknown): Position {
  const id = isRecord(data) ? (data.id ?? data.key) : undefined;
  if (typeof id === 'string') {
    for (const quote of ["'", '"', '`']) {
      const offset = text.indexOf(`${quote}${id}${quote}`);
      if (offset !== -1) {
        const before = text.slice(0, offset);
        const line = before.split('\n').length;
        return { file, line, col: offset - before.lastIndexOf('\n') };
      }
    }
  }
  return { file, line: 1, col: 1 };
}
