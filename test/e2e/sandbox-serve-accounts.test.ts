import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, callApi, waitFor, type Served } from '../helpers/serve.js';
import { script, startEscapeTarget, type EscapeTarget } from './sandbox-escapes.js';

// The script sandbox in `mac serve`: accounts share the runs fairly, and a service without
// bubblewrap refuses scripts unless told otherwise (the escapes: sandbox-serve.test.ts). The two
// tests have services of their own and run at once.
let target: EscapeTarget;
const services = new Set<Served>();
/** The cases' services, started one after the other before the cases' runs load the machine. */
let accounts: Served;
let refusing: Served;
let unsafe: Served;
beforeAll(async () => {
  target = await startEscapeTarget();
  accounts = await serve(['--api-key', 'key-a', '--account', 'a', '--api-key', 'key-b', '--account', 'b', '--time-scale', '30']);
  refusing = await serve(['--time-scale', '30'], { MAC_BWRAP: '' });
  unsafe = await serve(['--time-scale', '30', '--unsafe-scripts'], { MAC_BWRAP: '' });
}, 120_000);
afterAll(async () => {
  await Promise.all([...services].map((s) => s.stop()));
  await target?.close();
});

/** A service stopped after the test, or at the end of the file if the test failed first. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const s = await startServe(args, env);
  services.add(s);
  return s;
}
async function stop(s: Served): Promise<void> {
  await s.stop();
  services.delete(s);
}

describe.concurrent('script sandbox with mac serve: accounts and a service without bubblewrap', () => {
  it("with two accounts, account B's two sleeping scripts do not keep account A's multi-step check from running on time", async () => {
    const served = accounts;
    const a = { url: served.url, apiKey: 'key-a' };
    const b = { url: served.url, apiKey: 'key-b' };
    const { started } = target;
    const sleeper = (who: string) =>
      script(who, `  await request.get(process.env.BASE + '/started?who=${who}');\n  await new Promise((r) => setTimeout(r, 100_000));`, 110_000);
    const env = [{ key: 'BASE', value: target.http.url }];
    for (const who of ['b1', 'b2']) {
      const c = await callApi(b, 'POST', '/v1/checks/multistep', { name: who, frequency: 1, doubleCheck: false, environmentVariables: env, script: sleeper(who) });
      expect(c.status).toBe(201);
    }
    await waitFor(async () => (started.includes('b1') && started.includes('b2') ? true : undefined), 120_000, 250);
    const since = Date.now();
    const c = await callApi(a, 'POST', '/v1/checks/multistep', {
      name: 'a-journey',
      frequency: 1,
      doubleCheck: false,
      environmentVariables: env,
      script: script('a', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);"),
    });
    expect(c.status).toBe(201);
    const [result] = await waitFor(async () => {
      const r = await callApi(a, 'GET', `/v1/check-results/${c.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    }, 90_000, 250);
    expect(result).toMatchObject({ hasFailures: false, hasErrors: false });
    // B's scripts sleep 100 s: A ran while they slept, within a run's own time (Node and Playwright start).
    expect(Date.now() - since).toBeLessThan(90_000);
    expect(started.filter((w) => w === 'b1' || w === 'b2').length).toBe(2);
    await stop(served);
  }, 300_000);

  it('without bubblewrap the service refuses scripts with a clear error unless started with --unsafe-scripts, and says so when it starts', async () => {
    expect(refusing.log()).toMatch(/scripts: refused \(bwrap is not installed\): apt-get install -y bubblewrap, or start with --unsafe-scripts/);
    const body = { name: 'plain', frequency: 1, doubleCheck: false, environmentVariables: [{ key: 'BASE', value: target.http.url }], script: script('plain', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);") };
    const c = await callApi(refusing, 'POST', '/v1/checks/multistep', body);
    const [refused] = await waitFor(async () => {
      const r = await callApi(refusing, 'GET', `/v1/check-results/${c.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    }, 60_000, 250);
    expect(refused.hasErrors).toBe(true);
    expect(refused.multiStepCheckResult.errors[0]).toMatch(/apt-get install -y bubblewrap.*--unsafe-scripts/);
    await stop(refusing);

    expect(unsafe.log()).toMatch(/scripts: NOT sandboxed \(--unsafe-scripts; bwrap is not installed\)/);
    const d = await callApi(unsafe, 'POST', '/v1/checks/multistep', body);
    const [ran] = await waitFor(async () => {
      const r = await callApi(unsafe, 'GET', `/v1/check-results/${d.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    }, 90_000, 250);
    expect(ran).toMatchObject({ hasFailures: false, hasErrors: false });
    await stop(unsafe);
  }, 200_000);
});
