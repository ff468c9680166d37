import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the definition fixtures. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Where a fixture's one defect is expected: file, line and field path. */
export interface ExpectedDefect {
  file: string;
  line: number;
  path: string;
}

const MARKER = /(?:#|\/\/) <-(?: (\S*))?\s*$/;

/**
 * The defect of an invalid fixture, from the line that ends with a `# <- <field path>` (YAML) or
 * `// <- <field path>` (TypeScript) marker, else from an EXPECT file holding `file:line path`.
 */
export function expectedDefect(dir: string): ExpectedDefect {
  const found: ExpectedDefect[] = [];
  for (const file of readdirSync(dir)) {
    if (!/\.(ya?ml|ts)$/.test(file)) continue;
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const m = MARKER.exec(text);
        if (m) found.push({ file, line: i + 1, path: m[1] ?? '' });
      });
  }
  if (found.length === 1) return found[0];
  if (found.length === 0 && existsSync(join(dir, 'EXPECT'))) {
    const [where, path = ''] = readFileSync(join(dir, 'EXPECT'), 'utf8').trim().split(' ');
    const [file, line] = where.split(':');
    return { file, line: Number(line), path };
  }
  throw new Error(`${dir}: expected exactly one "<-" marker or an EXPECT file, found ${found.length} markers`);
}

/** Names of the fixture folders under `group` (e.g. `invalid`). */
export function fixtureCases(group: string): string[] {
  return readdirSync(join(FIXTURES, group), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}
