import { describe, expect, it } from 'vitest';
import { assemblePlan } from '../../../src/plan/index.js';
import { assembleDestroyPlan } from '../../../src/plan/destroy.js';
import { formatRecord, nextOwnedIds, ownershipFrom, parseRecord, type OwnedIds } from '../../../src/plan/record.js';
import { def, live, project } from './fixtures.js';

// The ownership record: identity by logical id, orphans and pruning for the kinds without tags.
const NOW = new Date('2026-02-03T04:05:06.000Z');
const stamps = { created_at: '2026-01-01T00:00:00.000Z', updated_at: null };
const liveSnippet = (id: number, name: string) => ({ id, name, script: '1', ...stamps });
const liveSvc = (id: string, name: string) => ({ id, name, accountId: 'dev', ...stamps });
const record = (project: string, objects: Record<string, Record<string, string>>) => ({ key: `MAC_OWNED_${project.toUpperCase().replace(/-/g, '_')}`, value: JSON.stringify({ v: 1, project, objects }), locked: false, secret: false });

const plan = (defs: Parameters<typeof project>[0], state: Parameters<typeof live>[0], variables: Array<Record<string, unknown>>, prune = false) =>
  assemblePlan({ project: project(defs), live: live(state), apiUrl: 'http://127.0.0.1:4010', prune, now: NOW, ownership: ownershipFrom('shop', variables) });

describe('identity by logical id', () => {
  it('a new name under a recorded logical id is one update of /name on the same object', () => {
    const p = plan([def('Snippet', 'helper', { name: 'New helper', script: '1' })], { Snippet: [liveSnippet(7, 'Old helper')] }, [record('shop', { Snippet: { helper: '7' } })]);
    expect(p.summary).toEqual({ create: 0, update: 1, delete: 0, noop: 0, orphaned: 0 });
    expect(p.changes[0]).toMatchObject({ action: 'update', remoteId: 7, patch: [{ op: 'replace', path: '/name', value: 'New helper' }] });
  });

  it('the record wins over a natural key: another definition with the old name plans a create', () => {
    const p = plan(
      [def('StatusPageService', 'api', { name: 'Public API' }), def('StatusPageService', 'legacy', { name: 'API' })],
      { StatusPageService: [liveSvc('u1', 'API')] },
      [record('shop', { StatusPageService: { api: 'u1' } })],
    );
    expect(p.changes.map((c) => [c.id, c.action, c.remoteId])).toEqual([
      ['api', 'update', 'u1'],
      ['legacy', 'create', undefined],
    ]);
  });

  it('a recorded variable whose key changed is a new variable; the old one is orphaned apart from the id', () => {
    const p = plan([def('EnvironmentVariable', 'NEW_KEY', { key: 'NEW_KEY', value: 'v' })], { EnvironmentVariable: [{ key: 'OLD_KEY', value: 'v', locked: false, secret: false }] }, [
      record('shop', { EnvironmentVariable: { NEW_KEY: 'OLD_KEY' } }),
    ]);
    expect(p.changes.map((c) => c.action)).toEqual(['create']);
    expect(p.orphaned).toEqual([{ kind: 'EnvironmentVariable', id: 'NEW_KEY@OLD_KEY', name: 'OLD_KEY', remoteId: 'OLD_KEY' }]);
  });

  it("never takes by name what another project records, and says so", () => {
    const p = plan([def('Snippet', 'helper', { name: 'helper', script: '1' })], { Snippet: [liveSnippet(7, 'helper')] }, [record('payments', { Snippet: { h: '7' } })]);
    expect(p.changes[0]!.action).toBe('create');
    expect(p.warnings.join('\n')).toContain('belongs to project "payments"');
  });

  it('believes a record only under its own project\'s key', () => {
    const forged = { ...record('shop', { Snippet: { x: '7' } }), key: 'MAC_OWNED_OTHER' };
    const o = ownershipFrom('shop', [forged]);
    expect(o.own.size).toBe(0);
    expect(o.foreign.size).toBe(0);
    expect(o.warnings[0]).toContain('names another project');
  });
});

describe('orphans and --prune of the kinds without tags', () => {
  const state = { Snippet: [liveSnippet(7, 'helper'), liveSnippet(8, 'by hand')], Dashboard: [{ dashboardId: 3, customUrl: 'board', header: 'h', ...stamps }] };
  const vars = [record('shop', { Snippet: { helper: '7' }, Dashboard: { board: '3' } })];

  it('lists what the record names and no definition claims; never what it does not name', () => {
    const p = plan([def('Dashboard', 'board', { customUrl: 'board', header: 'h' })], state, vars);
    expect(p.orphaned).toEqual([{ kind: 'Snippet', id: 'helper', name: 'helper', remoteId: 7 }]);
    expect(p.summary.orphaned).toBe(1);
    const pruned = plan([def('Dashboard', 'board', { customUrl: 'board', header: 'h' })], state, vars, true);
    expect(pruned.changes.filter((c) => c.action === 'delete')).toMatchObject([{ kind: 'Snippet', id: 'helper', remoteId: 7, notes: ['no longer defined (--prune)'] }]);
  });

  it('names them in the pull-request comment too', async () => {
    const { buildPlanBody } = await import('../../../src/action/comment/body.js');
    const p = plan([def('Dashboard', 'board', { customUrl: 'board', header: 'h' })], state, vars);
    const body = buildPlanBody(p, { title: '### mac plan', limit: 60_000, elsewhere: '', placeOf: () => undefined, linkOf: () => undefined }).text;
    expect(body).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
    expect(body).toContain('`Snippet/helper "helper" [7]`');
  });

  it('destroy deletes everything recorded, defined or not, and nothing unrecorded', () => {
    const d = assembleDestroyPlan({ project: project([]), live: live(state), apiUrl: 'http://x', now: NOW, ownership: ownershipFrom('shop', vars) });
    expect(d.changes.map((c) => `${c.kind}/${c.id}:${String(c.remoteId)}`).sort()).toEqual(['Dashboard/board:3', 'Snippet/helper:7']);
  });

  it('an unreadable record is ignored with a warning: nothing orphaned', () => {
    const p = plan([], state, [{ key: 'MAC_OWNED_SHOP', value: 'not json', locked: false, secret: false }]);
    expect(p.orphaned).toBeUndefined();
    expect(p.warnings[0]).toContain('the ownership record MAC_OWNED_SHOP is ignored: its value is not JSON');
  });
});

describe('the record after an apply', () => {
  const ids = (o: Record<string, Record<string, string>>): OwnedIds => new Map(Object.entries(o).map(([k, m]) => [k as never, new Map(Object.entries(m))]));

  it('records creates, updates and unchanged objects, moves a re-keyed object, forgets deletes and failures change nothing', () => {
    const next = nextOwnedIds(ids({ Snippet: { old: '7', gone: '9' } }), [
      { kind: 'Snippet', id: 'new', action: 'update', remoteId: 7, applied: true },
      { kind: 'Snippet', id: 'gone', action: 'delete', remoteId: 9, applied: true },
      { kind: 'Dashboard', id: 'board', action: 'create', remoteId: 3, applied: true },
      { kind: 'Dashboard', id: 'failed', action: 'create', applied: false },
      { kind: 'StatusPage', id: 'page', action: 'noop', remoteId: 'p1', applied: true },
      { kind: 'TcpCheck', id: 'tagged', action: 'create', remoteId: 'c1', applied: true },
    ]);
    expect(formatRecord('shop', next)).toBe('{"v":1,"project":"shop","objects":{"Snippet":{"new":"7"},"Dashboard":{"board":"3"},"StatusPage":{"page":"p1"}}}');
    expect(parseRecord(formatRecord('shop', next))).toEqual({ project: 'shop', ids: next });
  });

  it('refuses malformed records', () => {
    expect(parseRecord('{"v":1,"project":"shop","objects":{"TcpCheck":{"a":"1"}}}')).toEqual({ error: 'it lists an unknown kind or a malformed entry' });
    expect(parseRecord(null)).toHaveProperty('error');
    expect(parseRecord('x'.repeat(5 * 1024 * 1024))).toHaveProperty('error');
  });
});
