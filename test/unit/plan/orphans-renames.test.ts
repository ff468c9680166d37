import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { assembleDestroyPlan, assemblePlan } from '../../../src/plan/index.js';
import type { Plan } from '../../../src/plan/types.js';
import { renderPlan } from '../../../src/render/index.js';
import { def, live, liveTcp, project } from './fixtures.js';

const NOW = new Date('2026-02-03T04:05:06.000Z');
const plan = (defs: Parameters<typeof project>[0], state: Parameters<typeof live>[0], prune = false): Plan =>
  assemblePlan({ project: project(defs), live: live(state), apiUrl: 'http://127.0.0.1:4010', prune, now: NOW });
const plain = pc.createColors(false);

const tcp = (id: string, over: Record<string, unknown> = {}, extra: Parameters<typeof def>[3] = {}) =>
  def('TcpCheck', id, { name: 'DB', request: { hostname: 'db.internal', port: 5432 }, ...over }, extra);

const liveChannel = (id: number, address: string, subscriptions: Array<Record<string, unknown>>) => ({
  id,
  type: 'EMAIL',
  config: { address },
  sendRecovery: true,
  sendFailure: true,
  sendDegraded: false,
  sslExpiry: false,
  sslExpiryThreshold: 30,
  autoSubscribe: false,
  subscriptions,
});
const email = (id: string, address: string) => def('AlertChannel', id, { type: 'EMAIL', config: { address } });
const sub = (checkId: string, alertChannelId: number) => ({ id: alertChannelId * 100, checkId, groupId: null, activated: true, alertChannelId });

describe('orphans', () => {
  it('counts an owned check no longer defined as orphaned, lists it, and never says the account matches', () => {
    const p = plan([tcp('db')], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db']), liveTcp('u2', 'Old', ['mac:shop/old']), liveTcp('u3', 'X', ['mac:other/x'])] });
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 1, orphaned: 1 });
    expect(p.orphaned).toEqual([{ kind: 'TcpCheck', id: 'old', name: 'Old', remoteId: 'u2' }]);
    const text = renderPlan(p, 'text', plain);
    expect(text).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
    expect(text).toContain('TcpCheck/old "Old" [u2]');
    expect(text).not.toContain('The account matches the definitions');
    const md = renderPlan(p, 'markdown', plain);
    expect(md).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
    expect(md).not.toContain('The account matches the definitions');
  });

  it('still says the account matches when nothing is orphaned', () => {
    const p = plan([tcp('db')], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] });
    expect(p.summary.orphaned).toBe(0);
    expect(renderPlan(p, 'text', plain)).toContain('No changes. The account matches the definitions.');
  });

  it('an owned check of a kind the project no longer defines at all is still seen (owned kinds, checks and check groups, are always read)', async () => {
    const { kindsToFetch } = await import('../../../src/plan/index.js');
    expect(kindsToFetch([def('Snippet', 's', { name: 's', script: '1' })])).toEqual(['Snippet', 'CheckGroup', 'TcpCheck', 'DnsCheck', 'MultiStepCheck', 'BrowserCheck', 'HeartbeatCheck', 'UrlMonitor', 'ApiCheck', 'IcmpMonitor']);
  });
});

describe('renamedFrom', () => {
  it('updates the live check of the old id in place: same API id, the ownership tag moves', () => {
    const p = plan([tcp('primary-db', {}, { renamedFrom: ['db'] })], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] });
    expect(p.summary).toEqual({ create: 0, update: 1, delete: 0, noop: 0, orphaned: 0 });
    const c = p.changes[0]!;
    expect(c).toMatchObject({ action: 'update', id: 'primary-db', remoteId: 'u1' });
    expect(c.desired!.tags).toEqual(['mac:shop/primary-db']);
    expect(c.notes!.join('\n')).toContain('renamed from db');
  });

  it('prefers a live check that already carries the new tag; the old one is then an orphan', () => {
    const p = plan([tcp('primary-db', {}, { renamedFrom: ['db'] })], {
      TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db']), liveTcp('u2', 'DB', ['mac:shop/primary-db'])],
    });
    expect(p.changes[0]).toMatchObject({ action: 'noop', remoteId: 'u2' });
    expect(p.orphaned).toEqual([{ kind: 'TcpCheck', id: 'db', name: 'DB', remoteId: 'u1' }]);
  });

  it('takes the first old id of a list that a live check carries, and never another project\'s check', () => {
    const p = plan([tcp('c', {}, { renamedFrom: ['a', 'b'] })], { TcpCheck: [liveTcp('u1', 'DB', ['mac:other/a']), liveTcp('u2', 'DB', ['mac:shop/b'])] });
    expect(p.changes[0]).toMatchObject({ action: 'update', remoteId: 'u2' });
  });

  it('is not used by a tombstone', () => {
    const p = plan([tcp('new', {}, { state: 'absent', renamedFrom: ['db'] })], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] });
    expect(p.changes[0]).toMatchObject({ action: 'noop' });
    expect(p.summary.orphaned).toBe(1);
  });
});

describe('alert channel whose address changed', () => {
  const check = (id: string, channels: string[]) => tcp(id, {}, { refs: { alertChannels: channels } });

  it('is matched to the live channel that only this project\'s referencing checks subscribe to: one update', () => {
    const p = plan([email('oncall', 'new@example.com'), check('db', ['oncall'])], {
      AlertChannel: [liveChannel(4, 'old@example.com', [sub('u1', 4)])],
      TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'], { alertChannelSubscriptions: [{ alertChannelId: 4, activated: true }] })],
    });
    expect(p.summary).toEqual({ create: 0, update: 1, delete: 0, noop: 1, orphaned: 0 });
    const c = p.changes.find((x) => x.kind === 'AlertChannel')!;
    expect(c).toMatchObject({ action: 'update', remoteId: 4 });
    expect(c.patch).toEqual([{ op: 'replace', path: '/config/address', value: 'new@example.com', oldValue: 'old@example.com' }]);
    expect(c.notes!.join('\n')).toContain('the address changed');
    // The check keeps its subscription: the reference resolves to the same channel id.
    expect(p.changes.find((x) => x.kind === 'TcpCheck')!.action).toBe('noop');
  });

  it('is not matched when another project\'s check (or a group) subscribes to the old channel; the plan creates', () => {
    for (const extra of [sub('z9', 4), { id: 1, checkId: null, groupId: 3, activated: true }]) {
      const p = plan([email('oncall', 'new@example.com'), check('db', ['oncall'])], {
        AlertChannel: [liveChannel(4, 'old@example.com', [sub('u1', 4), extra])],
        TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db']), liveTcp('z9', 'Z', ['mac:other/z'])],
      });
      expect(p.changes.find((x) => x.kind === 'AlertChannel')!.action).toBe('create');
      expect(p.warnings.join('\n')).not.toContain('AlertChannel 4');
    }
  });

  it('is not matched when two channels could be its predecessor; the one left is reported, not orphaned', () => {
    const p = plan([email('oncall', 'new@example.com'), check('db', ['oncall'])], {
      AlertChannel: [liveChannel(4, 'old@example.com', [sub('u1', 4)]), liveChannel(5, 'older@example.com', [sub('u1', 5)])],
      TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])],
    });
    expect(p.changes.find((x) => x.kind === 'AlertChannel')!.action).toBe('create');
    expect(p.summary.orphaned).toBe(0);
    const w = p.warnings.join('\n');
    expect(w).toContain('AlertChannel 4 (EMAIL old@example.com) matches no definition');
    expect(w).toContain('AlertChannel 5');
  });

  it('is not matched to a channel a check definition names by raw id, nor one of another type', () => {
    const raw = tcp('db', { alertChannelSubscriptions: [{ alertChannelId: 4, activated: true }] }, { refs: { alertChannels: ['oncall'] } });
    const p = plan([email('oncall', 'new@example.com'), raw], {
      AlertChannel: [liveChannel(4, 'old@example.com', [sub('u1', 4)])],
      TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])],
    });
    expect(p.changes.find((x) => x.kind === 'AlertChannel')!.action).toBe('create');
    const slack = def('AlertChannel', 'oncall', { type: 'SLACK', config: { url: 'https://hooks.example/new' } });
    const q = plan([slack, check('db', ['oncall'])], { AlertChannel: [liveChannel(4, 'old@example.com', [sub('u1', 4)])], TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] });
    expect(q.changes.find((x) => x.kind === 'AlertChannel')!.action).toBe('create');
  });
});

describe('destroy plan', () => {
  it('deletes every owned check (defined or not) and every defined resource it finds; nothing of another project', () => {
    const p = assembleDestroyPlan({
      project: project([tcp('db'), def('Snippet', 's', { name: 'helper', script: '1' }), def('Snippet', 'gone', { name: 'gone', script: '1' }, { state: 'absent' })]),
      live: live({
        TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db']), liveTcp('u2', 'Old', ['mac:shop/old']), liveTcp('u3', 'X', ['mac:other/x']), liveTcp('u4', 'Y', ['team'])],
        DnsCheck: [],
        MultiStepCheck: [],
        BrowserCheck: [],
        HeartbeatCheck: [],
        Snippet: [{ id: 7, name: 'helper', script: '1' }, { id: 8, name: 'gone', script: '1' }, { id: 9, name: 'theirs', script: '1' }],
      }),
      apiUrl: 'x',
      now: NOW,
    });
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 4, noop: 0, orphaned: 0 });
    expect(p.changes.map((c) => `${c.kind}/${c.id}:${String(c.remoteId)}`).sort()).toEqual(['Snippet/gone:8', 'Snippet/s:7', 'TcpCheck/db:u1', 'TcpCheck/old:u2']);
    expect(p.changes.every((c) => c.action === 'delete' && c.liveFingerprint !== undefined)).toBe(true);
  });
});

describe('the pull-request comment', () => {
  it('names the orphans instead of saying the account matches', async () => {
    const { buildPlanBody } = await import('../../../src/action/comment/body.js');
    const p = plan([tcp('db')], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db']), liveTcp('u2', 'Old', ['mac:shop/old'])] });
    const body = buildPlanBody(p, { title: '### mac plan', limit: 60_000, elsewhere: '', placeOf: () => undefined, linkOf: () => undefined }).text;
    expect(body).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
    expect(body).not.toContain('The account matches the definitions');
  });
});
