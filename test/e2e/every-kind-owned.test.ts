import { spawn, spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { cleanEnv, MAC_BIN } from '../helpers/cli.js';
import { startServe, waitFor, type Served } from '../helpers/serve.js';
import { api, listAllOf, mac, writeProject } from './apply-fixtures.js';
import { runOnce } from './pages-fixtures.js';

// Every kind is owned: removed from the project, it is orphaned in every plan format and
// --prune deletes it; a new display name (or URL, or address) is an update of the same object;
// mac destroy removes what blocks it; saved plans are verified again at apply.

let served: Served;
beforeAll(async () => {
  served = await startServe(['--no-runs', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await served?.stop();
});

type Live = Record<string, any>;

/** One definition of every kind, none referencing another, so each can be removed alone. */
function everyKind(p: string, v = ''): Array<{ file: string; ref: string; yaml: string }> {
  const def = (file: string, ref: string, yaml: string) => ({ file, ref, yaml });
  return [
    def('variable.yaml', `EnvironmentVariable/${p.toUpperCase()}_VAR`, `kind: EnvironmentVariable\nkey: ${p.toUpperCase()}_VAR\nvalue: v\n`),
    def('snippet.yaml', 'Snippet/snip', `kind: Snippet\nid: snip\nname: ${p} snippet${v}\nscript: "1"\n`),
    def('channel.yaml', 'AlertChannel/mail', `kind: AlertChannel\nid: mail\ntype: EMAIL\nconfig: { address: ${p}${v}@example.com }\n`),
    def('location.yaml', 'PrivateLocation/dc', `kind: PrivateLocation\nid: dc\nname: ${p} DC${v}\nslugName: ${p}-dc\n`),
    def('group.yaml', 'CheckGroup/grp', `kind: CheckGroup\nid: grp\nname: ${p} group${v}\n`),
    def('service.yaml', 'StatusPageService/svc', `kind: StatusPageService\nid: svc\nname: ${p} service${v}\n`),
    def('tcp.yaml', 'TcpCheck/tcp', `kind: TcpCheck\nid: tcp\nname: ${p} tcp${v}\nrequest: { hostname: min.example, port: 1 }\n`),
    def('dns.yaml', 'DnsCheck/dns', `kind: DnsCheck\nid: dns\nname: ${p} dns${v}\nrequest: { query: min.example, recordType: A }\n`),
    def('multistep.yaml', 'MultiStepCheck/ms', `kind: MultiStepCheck\nid: ms\nname: ${p} flow${v}\nscript: "1"\n`),
    def('browser.yaml', 'BrowserCheck/br', `kind: BrowserCheck\nid: br\nname: ${p} browser${v}\nscript: "1"\n`),
    def('heartbeat.yaml', 'HeartbeatCheck/hb', `kind: HeartbeatCheck\nid: hb\nname: ${p} heartbeat${v}\nheartbeat: { period: 1, periodUnit: hours, grace: 1, graceUnit: minutes }\n`),
    def('url.yaml', 'UrlMonitor/url', `kind: UrlMonitor\nid: url\nname: ${p} url${v}\nrequest: { url: "https://www.min.example/" }\n`),
    def('api.yaml', 'ApiCheck/api', `kind: ApiCheck\nid: api\nname: ${p} api${v}\nrequest: { method: GET, url: "https://api.min.example/" }\n`),
    def('icmp.yaml', 'IcmpMonitor/icmp', `kind: IcmpMonitor\nid: icmp\nname: ${p} icmp${v}\nrequest: { hostname: 127.0.0.1 }\n`),
    def('dashboard.yaml', 'Dashboard/board', `kind: Dashboard\nid: board\ncustomUrl: ${p}-board${v ? `-${v}` : ''}\nheader: ${p}\n`),
    def('page.yaml', 'StatusPage/page', `kind: StatusPage\nid: page\nname: ${p} page\nurl: ${p}-page${v ? `-${v}` : ''}\ncards: []\n`),
    def('window.yaml', 'MaintenanceWindow/win', `kind: MaintenanceWindow\nid: win\nname: ${p} window${v}\ntags: [none]\nstartsAt: 2030-01-05T03:00:00Z\nendsAt: 2030-01-05T05:00:00Z\n`),
  ];
}

const projectFiles = (p: string, v = '') => ({ 'mac.config.yaml': `project: ${p}\n`, ...Object.fromEntries(everyKind(p, v).map((d) => [d.file, d.yaml])) });

const planJson = async (dir: string, extra: string[] = []) => {
  const r = await mac(served, ['plan', dir, '--format', 'json', '--detailed-exitcode', ...extra]);
  expect(r.stderr).not.toMatch(/^error/m);
  return { r, plan: JSON.parse(r.stdout) as Plan };
};
const applied = async (dir: string, extra: string[] = []) => {
  const r = await mac(served, ['apply', dir, '--yes', ...extra]);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r;
};

/** Every live object of the account, as `Kind:apiId` keys, by list. */
async function accountIds(): Promise<Set<string>> {
  const out = new Set<string>();
  const page = async (path: string, kind: string, id = 'id') => {
    for (const o of await listAllOf<Live>(served, path)) out.add(`${kind}:${String(o[id])}`);
  };
  const cursor = async (path: string, kind: string) => {
    let next: string | null = null;
    do {
      const body: Live = await api<Live>(served, 'GET', `${path}?limit=100${next ? `&nextId=${next}` : ''}`);
      for (const o of body.entries) out.add(`${kind}:${String(o.id)}`);
      next = body.nextId;
    } while (next);
  };
  await page('/v1/checks', 'check');
  await page('/v1/check-groups', 'group');
  await page('/v1/snippets', 'snippet');
  await page('/v1/variables', 'variable', 'key');
  await page('/v1/alert-channels', 'channel');
  await page('/v1/dashboards', 'dashboard', 'dashboardId');
  await page('/v1/maintenance-windows', 'window');
  for (const l of await api<Live[]>(served, 'GET', '/v1/private-locations')) out.add(`location:${String(l.id)}`);
  await cursor('/v1/status-pages', 'page');
  await cursor('/v1/status-pages/services', 'service');
  await cursor('/v1/status-pages/incidents', 'incident');
  return out;
}

describe('every kind is owned', () => {
  it('each definition removed in turn is orphaned in every format, pruned by --prune under the guards, then no change', async () => {
    const p = 'evk';
    const dir = writeProject(projectFiles(p));
    await applied(dir);
    expect((await planJson(dir)).plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 17, orphaned: 0 });
    const defs = everyKind(p);
    for (const [i, d] of defs.entries()) {
      rmSync(join(dir, d.file));
      const last = i === defs.length - 1;
      // Markdown on stdout and the JSON document in --out, in one run; the exit code is unchanged (0).
      const out = join(dir, '..', `${p}-${i}.plan.json`);
      const md = await mac(served, ['plan', dir, '--format', 'markdown', '--out', out, '--detailed-exitcode']);
      expect(md.code, `${d.ref}: ${md.stderr}`).toBe(0);
      expect(md.stdout).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
      expect(md.stdout).toContain(d.ref);
      const saved = JSON.parse(readFileSync(out, 'utf8')) as Plan;
      // Nothing else differs: the previous removal was pruned and left no change behind.
      expect(saved.summary, d.ref).toEqual({ create: 0, update: 0, delete: 0, noop: defs.length - 1 - i, orphaned: 1 });
      expect(saved.orphaned?.map((o) => `${o.kind}/${o.id}`)).toEqual([d.ref]);
      const text = await mac(served, ['plan', dir, '--detailed-exitcode']);
      expect(text.code, `${d.ref}: ${text.stderr}`).toBe(0);
      expect(text.stdout).toContain(`? ${d.ref}`);
      expect(text.stdout).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
      if (i === 0) {
        const guard = await mac(served, ['apply', dir, '--yes', '--prune', '--max-deletes', '0']);
        expect(guard.code).toBe(1);
        expect(guard.stderr).toContain(`the plan deletes 1 resources, more than --max-deletes 0: ${d.ref}`);
      }
      const pruned = await mac(served, ['apply', dir, '--yes', '--prune']);
      if (last) {
        // Pruning never empties a project: the last one stays until tombstoned or destroyed.
        expect(pruned.code).toBe(1);
        expect(pruned.stderr).toContain('keeps none');
        break;
      }
      expect(pruned.code, `${d.ref}: ${pruned.stderr}${pruned.stdout}`).toBe(0);
      expect(pruned.stderr).toContain(`- delete ${d.ref}`);
      expect(pruned.stdout).toMatch(new RegExp(`applied {2}delete {2}${d.ref}`));
    }
    // After the last prune, a second plan shows no change (the last orphan stays: never emptied).
    const second = await planJson(dir);
    expect(second.r.code).toBe(0);
    expect(second.plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 0, orphaned: 1 });
    const destroyed = await mac(served, ['destroy', dir, '--yes']);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect((await listAllOf<Live>(served, '/v1/variables')).map((v) => v.key)).not.toContain('MAC_OWNED_EVK');
  }, 1_800_000);

  it('a new display name (URL, address) of every kind is one update of the same object, and no copy', async () => {
    const p = 'evn';
    const dir = writeProject(projectFiles(p));
    await applied(dir);
    const before = (await planJson(dir)).plan;
    const idsBefore = await accountIds();
    writeProject(projectFiles(p, '2'), dir);
    const { plan } = await planJson(dir);
    const display: Record<string, string> = { AlertChannel: '/config/address', Dashboard: '/customUrl', StatusPage: '/url' };
    const updates = plan.changes.filter((c) => c.action === 'update');
    expect(plan.summary).toEqual({ create: 0, update: 16, delete: 0, noop: 1, orphaned: 0 });
    for (const c of updates) {
      expect(c.patch.map((op) => `${op.op} ${op.path}`), `${c.kind}/${c.id}`).toEqual([`replace ${display[c.kind] ?? '/name'}`]);
      expect(c.remoteId).toBe(before.changes.find((b) => b.kind === c.kind && b.id === c.id)!.remoteId);
    }
    await applied(dir);
    expect((await planJson(dir)).plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 17, orphaned: 0 });
    // Same live ids, no copy: the account holds exactly the objects it held (the lock is gone again).
    expect([...(await accountIds())].sort()).toEqual([...idsBefore].sort());
    expect((await mac(served, ['destroy', dir, '--yes', '--max-deletes', '20'])).code).toBe(0);
  }, 900_000);
});

describe('destroy finishes', () => {
  it("removes the incident triggerIncident opened on the project's service, and nothing of another project", async () => {
    const other = writeProject({ 'mac.config.yaml': 'project: bystander\n', ...Object.fromEntries(everyKind('bys').map((d) => [d.file, d.yaml])) });
    await applied(other);
    // What the account holds without the project: exactly what it must hold after its destroy.
    const before = await accountIds();
    const dir = writeProject({
      'mac.config.yaml': 'project: incid\n',
      'svc.yaml': 'kind: StatusPageService\nid: api\nname: Products API\n',
      'page.yaml': 'kind: StatusPage\nid: page\nname: Products\nurl: incid-page\ncards: [{ name: All, services: [api] }]\n',
      // Port 9 on loopback: closed (or denied), so a run fails and opens the incident.
      'check.yaml':
        'kind: TcpCheck\nid: down\nname: Products API down\ndoubleCheck: false\nrequest: { hostname: 127.0.0.1, port: 9 }\ntriggerIncident: { service: api, severity: MAJOR, name: Products API down, description: d, notifySubscribers: false }\n',
    });
    await applied(dir);
    const check = (await listAllOf<Live>(served, '/v1/checks')).find((c) => c.tags.includes('mac:incid/down'))!;
    const service = (await api<Live>(served, 'GET', '/v1/status-pages/services?limit=100')).entries.find((s: Live) => s.name === 'Products API');
    await runOnce(served, check.id);
    const incident = await waitFor(async () => (await api<Live>(served, 'GET', '/v1/status-pages/incidents')).entries.find((i: Live) => i.services.some((s: Live) => s.id === service.id)));
    // A subscriber of the page is removed with it.
    await api(served, 'POST', `/v1/status-pages/${(await api<Live>(served, 'GET', '/v1/status-pages?limit=100')).entries.find((x: Live) => x.url === 'incid-page').id}/subscriptions/bulk`, {
      subscriptions: [{ type: 'EMAIL', config: 'reader@example.com' }],
      autoVerify: true,
    });

    const r = await mac(served, ['destroy', dir, '--yes']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain('Removed first, so that the deletes succeed');
    expect(r.stderr).toMatch(new RegExp(`- delete Incident "Products API down" \\[${incident.id}\\]`));
    expect(r.stderr).toContain('- delete StatusPageSubscription');
    const left = await accountIds();
    // Nothing of the project (its record and lock included), and everything of the other project.
    expect([...left].sort()).toEqual([...before].sort());
    expect(left.has(`incident:${incident.id}`)).toBe(false);
    expect((await mac(served, ['plan', other, '--detailed-exitcode'])).code).toBe(0);
    expect((await mac(served, ['destroy', other, '--yes', '--max-deletes', '20'])).code).toBe(0);
  }, 600_000);

  // `script` (util-linux) gives the CLI a terminal.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('a 12-resource project goes after the typed confirmation, --max-deletes being for --yes runs only', async () => {
    const files: Record<string, string> = { 'mac.config.yaml': 'project: twelve\n' };
    for (let i = 0; i < 12; i++) files[`s${i}.yaml`] = `kind: Snippet\nid: s${i}\nname: twelve ${i}\nscript: "1"\n`;
    const dir = writeProject(files);
    await applied(dir);
    const bystander = writeProject({ 'mac.config.yaml': 'project: twelve-other\n', 'a.yaml': 'kind: Snippet\nid: a\nname: twelve other\nscript: "1"\n' });
    await applied(bystander);
    const unattended = await mac(served, ['destroy', dir, '--yes']);
    expect(unattended.code).toBe(1);
    expect(unattended.stderr).toContain('more than --max-deletes 10');

    const out = await new Promise<{ code: number; out: string }>((resolve) => {
      const child = spawn('script', ['-qec', `"${process.execPath}" "${MAC_BIN}" destroy "${dir}"`, '/dev/null'], { env: cleanEnv({ MAC_API_URL: served.url, MAC_API_KEY: served.apiKey }) });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (text += d.toString('utf8')));
      child.on('close', (code) => resolve({ code: code ?? 1, out: text }));
      child.stdin.end('twelve\n');
    });
    expect(out.code, out.out).toBe(0);
    expect(out.out).toContain('This deletes 12 objects of project "twelve"');
    const names = (await listAllOf<Live>(served, '/v1/snippets')).map((s) => s.name as string);
    expect(names.filter((n) => /^twelve \d+$/.test(n))).toEqual([]);
    expect(names).toContain('twelve other');
    expect((await listAllOf<Live>(served, '/v1/variables')).map((v) => v.key)).not.toContain('MAC_OWNED_TWELVE');
  }, 600_000);
});

describe('saved plans are verified again at apply', () => {
  it("refuses an update retargeted to another project's check, and an edited summary, naming the operation", async () => {
    const mine = writeProject({ 'mac.config.yaml': 'project: sp-mine\n', 'c.yaml': 'kind: TcpCheck\nid: db\nname: Mine\nrequest: { hostname: a.example, port: 1 }\n' });
    const theirs = writeProject({ 'mac.config.yaml': 'project: sp-theirs\n', 'c.yaml': 'kind: TcpCheck\nid: db\nname: Theirs\nrequest: { hostname: b.example, port: 1 }\n' });
    await applied(mine);
    await applied(theirs);
    const victim = (await listAllOf<Live>(served, '/v1/checks')).find((c) => c.tags.includes('mac:sp-theirs/db'))!;
    writeFileSync(join(mine, 'c.yaml'), 'kind: TcpCheck\nid: db\nname: Mine renamed\nrequest: { hostname: a.example, port: 1 }\n');
    const file = join(mine, 'plan.json');
    expect((await mac(served, ['plan', mine, '--out', file])).code).toBe(0);
    const plan = JSON.parse(readFileSync(file, 'utf8')) as Plan;
    const { fingerprint } = await import('../../src/plan/compare.js');
    const retargeted = { ...plan, changes: plan.changes.map((c) => (c.action === 'update' ? { ...c, remoteId: victim.id, liveFingerprint: fingerprint('TcpCheck', victim) } : c)) };
    writeFileSync(file, JSON.stringify(retargeted));
    const r = await mac(served, ['apply', file, '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`update TcpCheck/db (id ${victim.id}): the live check belongs to project "sp-theirs"`);
    expect((await api<Live>(served, 'GET', `/v1/checks/${victim.id}`)).name).toBe('Theirs');

    writeFileSync(file, JSON.stringify({ ...plan, summary: { ...plan.summary, update: 0, noop: 1 } }));
    const edited = await mac(served, ['apply', file, '--yes']);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('summary.update is 0 but the changes hold 1 (update TcpCheck/db)');
  }, 300_000);

  it('refuses /dev/zero and a FIFO as the plan file at once', async () => {
    const zero = await mac(served, ['apply', '/dev/zero', '--yes'], { timeoutMs: 60_000 });
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('/dev/zero is a device, not a plan file');
    const dir = writeProject({});
    const fifo = join(dir, 'plan.json');
    execFileSync('mkfifo', [fifo]);
    const r = await mac(served, ['apply', fifo, '--yes'], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is a FIFO (named pipe), not a plan file');
  }, 180_000);
});
