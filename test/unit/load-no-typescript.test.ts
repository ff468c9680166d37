import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/config/load.js';

const dir = mkdtempSync(join(tmpdir(), 'mac-no-ts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadProject with typescript: false', () => {
  it('refuses every *.mac.ts file with a diagnostic naming it, before running any of it', async () => {
    const marker = join(dir, 'ran.txt');
    mkdirSync(join(dir, 'checks'));
    writeFileSync(join(dir, 'mac.config.yaml'), 'project: no-ts\n');
    writeFileSync(join(dir, 'checks/db.yaml'), 'kind: TcpCheck\nid: db\nname: DB\nrequest: { hostname: db.example, port: 5432 }\n');
    writeFileSync(join(dir, 'checks/evil.mac.ts'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport default [];\n`);
    const p = await loadProject(dir, { env: {}, typescript: false });
    expect(existsSync(marker)).toBe(false);
    expect(p.diagnostics.filter((d) => d.severity === 'error')).toEqual([
      {
        file: 'checks/evil.mac.ts',
        line: 1,
        col: 1,
        severity: 'error',
        path: '',
        message: 'TypeScript definitions are refused here (--no-typescript): a *.mac.ts file is code and would run when loaded',
        hint: 'write the definitions as YAML, or load this project only where its code is trusted',
      },
    ]);
    // Nothing of the project is loaded while code stands refused.
    expect(p.definitions).toEqual([]);
  });
});
