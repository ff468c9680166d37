/** Finds the definition files of a project: the include globs over its tree. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { globMatcher } from './glob.js';

/** Name of the project file; it never counts as a definition file. */
export const CONFIG_FILE = 'mac.config.yaml';

/**
 * Relative paths (`/` separators, sorted) of files under `dir` matching `include`.
 * node_modules, dot-folders and mac.config.yaml never count.
 */
export async function discoverFiles(dir: string, include: readonly string[]): Promise<string[]> {
  const matches = globMatcher(include);
  const found: string[] = [];
  const walk = async (relDir: string): Promise<void> => {
    const entries = await readdir(relDir === '' ? dir : join(dir, relDir), { withFileTypes: true });
    const subdirs: string[] = [];
    for (const entry of entries) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
        subdirs.push(rel);
      } else if (entry.isFile() && entry.name !== CONFIG_FILE && matches(rel)) {
        found.push(rel);
      }
    }
    await Promise.all(subdirs.map(walk));
  };
  await walk('');
  return found.sort();
}
