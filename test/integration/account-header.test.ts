import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';

// Another implementation of the API may name the account header otherwise: the reference API
// calls it x-checkly-account. mac serve --account-header plays that service here.
const work = mkdtempSync(join(tmpdir(), 'mac-account-header-'));
const KEY = 'header-test-key-0001';
let served: Served;

beforeAll(async () => {
  served = await startServeIn(['--api-key', KEY, '--account', 'acme', '--account-header', 'x-checkly-account', '--no-runs']);
  writeFileSync(join(work, 'mac.config.yaml'), 'project: header-test\ndefaults:\n  check: { locations: [eu-west-1], frequency: 10 }\n');
  writeFileSync(join(work, 'tcp.yaml'), 'kind: TcpCheck\nid: db\nname: Database\nrequest: { hostname: db.example.com, port: 5432 }\n');
}, 30_000);
afterAll(async () => {
  await served?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the account header', () => {
  it('mac serve names it at start', () => {
    expect(served.log()).toContain('account header: x-checkly-account');
  });

  it('plans and applies against a service reading x-checkly-account with --account-header x-checkly-account', async () => {
    const env = { MAC_API_URL: served.url, MAC_API_KEY: KEY, MAC_ACCOUNT_ID: 'acme' };
    const plan = await runMacIn(['plan', work, '--account-header', 'x-checkly-account', '--detailed-exitcode'], { env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/1 to create/);
    // The environment variable works as the flag does.
    const apply = await runMacIn(['apply', work, '--yes'], { env: { ...env, MAC_ACCOUNT_HEADER: 'X-Checkly-Account' } });
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    const again = await runMacIn(['plan', work, '--account-header', 'x-checkly-account', '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  }, 120_000);

  it('with the default header answers a clear error naming the header to use', async () => {
    const env = { MAC_API_URL: served.url, MAC_API_KEY: KEY, MAC_ACCOUNT_ID: 'acme' };
    const plan = await runMacIn(['plan', work], { env });
    expect(plan.code).not.toBe(0);
    expect(plan.code).not.toBe(2);
    expect(plan.stderr).toContain('This service reads the account from the header "x-checkly-account", not "x-service-account"');
    expect(plan.stderr).toContain('--account-header');
    expect(plan.stdout + plan.stderr).not.toContain(KEY);
  }, 60_000);

  it('sends the account in the named header: another account there is refused', async () => {
    const env = { MAC_API_URL: served.url, MAC_API_KEY: KEY, MAC_ACCOUNT_ID: 'other' };
    const plan = await runMacIn(['plan', work, '--account-header', 'x-checkly-account'], { env });
    expect(plan.code).not.toBe(0);
    expect(plan.stderr).toContain('API key does not belong to account "other"');
  }, 60_000);

  it('refuses a header name that is not one, or one mac sets itself', async () => {
    const env = { MAC_API_URL: served.url, MAC_API_KEY: KEY };
    const bad = await runMacIn(['plan', work, '--account-header', 'x account'], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--account-header must be an HTTP header name');
    const reserved = await runMacIn(['plan', work], { env: { ...env, MAC_ACCOUNT_HEADER: 'Authorization' } });
    expect(reserved.code).not.toBe(0);
    expect(reserved.stderr).toContain('MAC_ACCOUNT_HEADER cannot be "authorization": mac sets that header itself');
  }, 60_000);
});
