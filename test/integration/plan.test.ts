import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { Plan } from '../../src/plan/types.js';
import type { RunResult } from '../helpers/cli.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { roundTripFiles, ROUNDTRIP_SECRETS } from '../e2e/fixtures-roundtrip.js';
import { createAsEngine, writeProject } from '../e2e/plan-helpers.js';

let served: Served;
let client: ApiClient;
let dir: string;
/** Every output of every command run here, searched for secrets at the end. */
const outputs: string[] = [];

const env = () => ({ MAC_API_URL: served.url, MAC_API_KEY: served.apiKey, ...ROUNDTRIP_SECRETS });
async function mac(args: string[]): Promise<RunResult> {
  const r = await runMacIn(args, { env: env(), cwd: dir });
  outputs.push(r.stdout, r.stderr);
  return r;
}
async function planJson(extra: string[] = []): Promise<{ r: RunResult; plan: Plan }> {
  const r = await mac(['plan', '.', '--format', 'json', '--detailed-exitcode', ...extra]);
  return { r, plan: JSON.parse(r.stdout) as Plan };
}

beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
  client = new ApiClient({ apiUrl: served.url, apiKey: served.apiKey });
  const group = await client.post<{ id: number }>('/v1/check-groups', { name: 'Round trip group' });
  await client.post('/v1/private-locations', { name: 'Edge one', slugName: 'edge-1' });
  const service = await client.post<{ id: string }>('/v1/status-pages/services', { name: 'Shop database' });
  const channel = await client.post<{ id: number }>('/v1/alert-channels', { type: 'EMAIL', config: { address: 'elsewhere@example.com' } });
  dir = await writeProject(roundTripFiles({ groupId: group.id, serviceId: service.id, channelId: channel.id }));
  await createAsEngine(dir, client, ROUNDTRIP_SECRETS);
});

afterAll(async () => {
  await client?.close();
  await served?.stop();
});

describe('mac plan against mac serve', () => {
  it('round trip: every kind and field created as the engine would plans no change (exit 0)', async () => {
    const { r, plan } = await planJson();
    const changed = plan.changes.filter((c) => c.action !== 'noop');
    expect(changed.map((c) => ({ ref: `${c.kind}/${c.id}`, patch: c.patch }))).toEqual([]);
    expect(r.code).toBe(0);
    // 2 snippets, 2 variables, 7 alert channels (one per type), 6 checks (one per kind), 1 dashboard.
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 19, orphaned: 0 });
    // Every field of the fixture is known to the kind table (none dropped unsent and uncompared).
    expect(plan.changes.flatMap((c) => c.notes ?? []).filter((n) => n.includes('unknown to mac'))).toEqual([]);
    const text = await mac(['plan', '.', '--detailed-exitcode']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete.');
  });

  it('a change made through the API shows as one patch operation at the right path', async () => {
    const checks = await client.get<Array<Record<string, unknown>>>('/v1/checks', { limit: 100 });
    const tcp = checks.find((c) => c.name === 'TCP with every field')!;
    await client.put(`/v1/checks/tcp/${String(tcp.id)}`, { request: { ...(tcp.request as object), port: 6543 } }, { autoAssignAlerts: false });
    const { r, plan } = await planJson();
    expect(r.code).toBe(2);
    const changed = plan.changes.filter((c) => c.action !== 'noop');
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ action: 'update', kind: 'TcpCheck', id: 'tcp-all', remoteId: tcp.id, file: 'checks/tcp.yaml', line: 1 });
    expect(changed[0].patch).toEqual([{ op: 'replace', path: '/request/port', value: 5432, oldValue: 6543 }]);
    // Put it back so that the next tests start from no change.
    await client.put(`/v1/checks/tcp/${String(tcp.id)}`, { request: tcp.request }, { autoAssignAlerts: false });
  });

  it('a rename is an update of the same check, and --out writes the plan', async () => {
    const file = join(dir, 'checks/heartbeat.yaml');
    const original = await readFile(file, 'utf8');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, original.replace('name: Nightly backup', 'name: Nightly database backup'));
    try {
      const r = await mac(['plan', '.', '--out', 'plan.json', '--detailed-exitcode']);
      expect(r.code).toBe(2);
      expect(r.stdout).toContain('~ update HeartbeatCheck/nightly');
      expect(r.stdout).toContain('name: "Nightly backup" -> "Nightly database backup"');
      expect(r.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete.');
      const saved = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as Plan;
      outputs.push(JSON.stringify(saved));
      const update = saved.changes.find((c) => c.action === 'update')!;
      expect(update.patch).toEqual([{ op: 'replace', path: '/name', value: 'Nightly database backup', oldValue: 'Nightly backup' }]);
      expect(update.liveFingerprint).toMatch(/^sha256:/);
      const md = await mac(['plan', '.', '--format', 'markdown']);
      expect(md.code).toBe(0);
      expect(md.stdout).toContain('<details>');
    } finally {
      await writeFile(file, original);
    }
  });

  it('--prune deletes an owned check that is no longer defined; without it the plan reports it as orphaned', async () => {
    const { rename } = await import('node:fs/promises');
    const file = join(dir, 'checks/multistep.yaml');
    await rename(file, `${file}.off`);
    try {
      const warned = await planJson();
      expect(warned.r.code).toBe(0);
      expect(warned.plan.orphaned).toMatchObject([{ kind: 'MultiStepCheck', id: 'flow', name: 'Checkout flow' }]);
      const pruned = await planJson(['--prune']);
      expect(pruned.r.code).toBe(2);
      expect(pruned.plan.changes.filter((c) => c.action !== 'noop')).toMatchObject([{ action: 'delete', kind: 'MultiStepCheck', id: 'flow', name: 'Checkout flow' }]);
    } finally {
      await rename(`${file}.off`, file);
    }
  });

  it('stops on invalid definitions with their diagnostics, not the error of the live state read meanwhile', async () => {
    const bad = await writeProject({ 'mac.config.yaml': 'project: bad\n', 'c.yaml': 'kind: TcpCheck\nid: x\nname: x\nrequest: { hostname: h, port: 99999 }\n' });
    // A URL where nothing listens: a request would fail with ECONNREFUSED instead of the diagnostics.
    const r = await runMacIn(['plan', bad, '--api-url', 'http://127.0.0.1:9', '--api-key', 'k']);
    outputs.push(r.stdout, r.stderr);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/c\.yaml:4:\d+: error: request\.port/);
    expect(r.stderr).toContain('nothing was planned');
    expect(r.stderr).not.toContain('ECONNREFUSED');
  });

  it('names the address and the fix when the API is not reachable', async () => {
    const r = await runMacIn(['plan', dir, '--api-url', 'http://127.0.0.1:9', '--api-key', 'k'], { env: ROUNDTRIP_SECRETS });
    outputs.push(r.stdout, r.stderr);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ECONNREFUSED 127.0.0.1:9');
    expect(r.stderr).toContain('mac serve');
  });

  it('no secret value appears in any output of any command run above', () => {
    expect(outputs.length).toBeGreaterThan(8);
    for (const secret of Object.values(ROUNDTRIP_SECRETS)) for (const out of outputs) expect(out).not.toContain(secret);
    // The alert-channel credentials are compared but never shown either.
    for (const out of outputs) expect(out).not.toContain('og-api-key-1');
  });
});
