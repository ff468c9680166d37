import { afterEach, describe, expect, it } from 'vitest';
import { startServe, type Served } from '../helpers/serve.js';
import { listAllOf, mac, shop, shopEnv as env, writeProject } from './apply-fixtures.js';


let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

// What `mac apply` prints, plans and applies is tested in process (test/integration/apply.test.ts);
// here, what a process started without a terminal on stdin does.
describe('mac apply DIR', () => {
  it('without a terminal, refuses to apply a directory without --yes', async () => {
    served = await startServe(['--no-runs']);
    const dir = writeProject(shop);
    const r = await mac(served, ['apply', dir], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('mac apply needs --yes when it cannot ask (no terminal)');
    expect(await listAllOf(served, '/v1/checks')).toEqual([]);
  });
});
