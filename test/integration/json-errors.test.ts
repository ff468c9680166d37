import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn } from '../helpers/mac-inprocess.js';

// `--format json` promises exactly one JSON document on stdout: failures included, so that a
// script parsing stdout gets the reason instead of an empty string.
describe('--format json when a run fails', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mac-json-errors-'));
    await writeFile(join(dir, 'mac.config.yaml'), 'project: shop\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints one error document with the diagnostics of invalid definitions (plan, apply, test)', async () => {
    await writeFile(join(dir, 'bad.yaml'), 'kind: TcpCheck\nid: db\nname: DB\nrequest: { hostname: db, port: 70000 }\n');
    for (const args of [['plan', dir], ['apply', dir, '--yes'], ['test', dir]]) {
      const r = await runMacIn([...args, '--format', 'json'], { env: { MAC_API_URL: 'http://127.0.0.1:9', MAC_API_KEY: 'k' } });
      expect(r.code).toBe(1);
      const doc = JSON.parse(r.stdout);
      expect(doc.error.message).toMatch(/^invalid definitions: 1 error in 1 file/);
      expect(doc.error.diagnostics).toEqual([expect.objectContaining({ file: 'bad.yaml', line: 4, path: 'request.port' })]);
      expect(r.stderr).toContain('bad.yaml:4:');
    }
    await rm(join(dir, 'bad.yaml'));
  });

  it('prints one error document, with the hint, when the API cannot be reached; text mode prints none', async () => {
    const env = { MAC_API_URL: 'http://127.0.0.1:9', MAC_API_KEY: 'k' };
    await writeFile(join(dir, 'snippet.yaml'), 'kind: Snippet\nid: s\nname: s\nscript: "1"\n');
    const json = await runMacIn(['plan', dir, '--format', 'json'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ message: expect.stringContaining('ECONNREFUSED 127.0.0.1:9'), hint: expect.any(String), exitCode: 1 });
    const text = await runMacIn(['plan', dir], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
  });
});
