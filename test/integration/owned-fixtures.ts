import { expect } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { macIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { api, listAllOf } from '../e2e/apply-fixtures.js';

// What the ownership files share (every-kind-owned, every-kind-renamed, saved-plans,
// kinds-maintenance, orphans): the CLI in process against one served account, and one definition
// of every kind.

export type Live = Record<string, any>;

/** `mac plan DIR --format json --detailed-exitcode`, its result and the parsed plan. */
export async function planJson(served: Served, dir: string, extra: string[] = []) {
  const r = await macIn(served, ['plan', dir, '--format', 'json', '--detailed-exitcode', ...extra]);
  return { r, plan: JSON.parse(r.stdout) as Plan };
}

/** planJson, which must print no error. */
export async function planJsonOk(served: Served, dir: string, extra: string[] = []) {
  const res = await planJson(served, dir, extra);
  expect(res.r.stderr).not.toMatch(/^error/m);
  return res;
}

/** `mac apply DIR --yes`, which must succeed. */
export async function applied(served: Served, dir: string, extra: string[] = []) {
  const r = await macIn(served, ['apply', dir, '--yes', ...extra]);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r;
}

/** One definition of every kind, none referencing another, so each can be removed alone. */
export function everyKind(p: string, v = ''): Array<{ file: string; ref: string; yaml: string }> {
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

/** A project `p` holding one definition of every kind (display names suffixed with `v`). */
export const projectFiles = (p: string, v = '') => ({ 'mac.config.yaml': `project: ${p}\n`, ...Object.fromEntries(everyKind(p, v).map((d) => [d.file, d.yaml])) });

/** Every live object of the account, as `Kind:apiId` keys, by list. */
export async function accountIds(served: Served): Promise<Set<string>> {
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
