/** Finds the definition files of a project: the include globs over its tree. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { globMatcher } from './glob.js';

/** Name of the project file; it never counts as a definition file. */
export const CONFIG_FILE = 'mac.config.yaml';

/** What a walk of the project tree found. */
export interface DiscoveredFiles {
  /** Relative paths (`/` separators, sorted) of files matching `include`. */
  files: string[];
  /** Every `*.mac.ts` file of the tree, matching `include` or not (for `typescript: false`). */
  typescript: string[];
}

/**
 * Relative paths (`/` separators, sorted) of files under `dir` matching `include`.
 * node_modules, dot-folders and mac.config.yaml never count.
 */
export async function discoverFiles(dir: string, include: readonly string[]): Promise<string[]> {
  return (await discoverProject(dir, include)).files;
}

/**
 * Walks the project tree: the files matching `include`, and every `*.mac.ts` file. Symlinked
 * folders are not walked; a symlinked file that matches is listed, and the reader refuses it
 * when it leads outside the project (see files.ts).
 */
export async function discoverProject(dir: string, include: readonly string[]): Promise<DiscoveredFiles> {
  const matches = globMatcher(include);
  const found: string[] = [];
  const typescript: string[] = [];
  const walk = async (relDir: string): Promise<void> => {
    const entries = await readdir(relDir === '' ? dir : join(dir, relDir), { withFileTypes: true });
    const subdirs: string[] = [];
    for (const entry of entries) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
        subdirs.push(rel);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name !== CONFIG_FILE) {
        if (matches(rel)) found.push(rel);
        if (entry.name.endsWith('.mac.ts')) typescript.push(rel);
      }
    }
    await Promise.all(subdirs.map(walk));
  };
  await walk('');
  return { files: found.sort(), typescript: typescript.sort() };
}
