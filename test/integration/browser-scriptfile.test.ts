import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { callApi, type Served } from '../helpers/serve.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import { browserCheckYaml, browserScript, scriptProject } from '../helpers/site.js';

// A BrowserCheck with scriptFile planned, applied and imported back, with the CLI and `mac serve`
// in this process: no script runs (the runs in Chromium, with `mac serve` and `mac test`:
// test/e2e/browser.test.ts).

let engine: Served;
const dirs: string[] = [];
beforeAll(async () => {
  engine = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await engine?.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Where the script would go: a site of the test's own (nothing runs here, the URL is only stored). */
const SHOP_URL = 'http://127.0.0.1:9';

const passing = browserScript(`test('home', async ({ page }) => {
  await page.goto(process.env.SHOP_URL + '/');
  await expect(page.locator('h1')).toHaveText('Welcome');
});`);

const project = (files: Record<string, string>) => scriptProject(dirs, 'mac-browser-int-', files);

const definition = (id: string, scriptFile: string) => browserCheckYaml(id, scriptFile, SHOP_URL);

describe('plan, apply and import of a BrowserCheck with scriptFile', () => {
  it('creates it, then finds no changes; an import writes YAML and the script file that plan back to no changes', async () => {
    const served = engine;
    const env = { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey };
    const dir = await project({ 'checks.yaml': definition('home', 'scripts/home.spec.js'), 'scripts/home.spec.js': passing });
    const plan = await runMacIn(['plan', dir, '--format', 'json'], { env });
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).changes.map((c: any) => [c.kind, c.id, c.action])).toEqual([['BrowserCheck', 'home', 'create']]);
    const apply = await runMacIn(['apply', dir, '--yes'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    const [stored] = (await callApi(served, 'GET', '/v1/checks')).body;
    expect(stored).toMatchObject({ checkType: 'BROWSER', name: 'home', script: passing });
    expect((await runMacIn(['plan', dir, '--detailed-exitcode'], { env })).stdout).toContain('No changes');

    const out = await mkdtemp(join(tmpdir(), 'mac-browser-import-'));
    dirs.push(out);
    const imported = await runMacIn(['import', '--out', out, '--project', 'shop', '--kind', 'browser'], { env });
    expect(imported.stderr).not.toContain('error');
    expect(imported.code).toBe(0);
    const [doc] = parseAllDocuments(await readFile(join(out, 'checks/browser.yaml'), 'utf8')).map((d) => d.toJS());
    expect(doc).toMatchObject({ kind: 'BrowserCheck', id: 'home', scriptFile: './browser/home.js' });
    expect(await readFile(join(out, 'checks', doc.scriptFile), 'utf8')).toBe(passing);
    const again = await runMacIn(['plan', out, '--detailed-exitcode'], { env });
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
  });
});
