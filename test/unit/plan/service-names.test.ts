import { describe, expect, it } from 'vitest';
import { assemblePlan } from '../../../src/plan/index.js';
import { def, live, project } from './fixtures.js';

// A status-page service has only a name: `previousNames` keeps its identity across a rename.
const NOW = new Date('2026-02-03T04:05:06.000Z');
const plan = (defs: Parameters<typeof project>[0], services: Array<Record<string, unknown>>) =>
  assemblePlan({ project: project(defs), live: live({ StatusPageService: services }), apiUrl: 'http://127.0.0.1:4010', prune: false, now: NOW });
const svc = (id: string, name: string, previousNames?: string[]) => def('StatusPageService', id, { name }, previousNames ? { previousNames } : {});
const liveSvc = (id: string, name: string) => ({ id, name, accountId: 'dev', created_at: '2026-01-01T00:00:00.000Z', updated_at: null });

describe('status-page service identity', () => {
  it('a new name with the old one in previousNames is an update of the same service', () => {
    const p = plan([svc('db', 'Primary database', ['Database'])], [liveSvc('u1', 'Database')]);
    expect(p.summary).toEqual({ create: 0, update: 1, delete: 0, noop: 0, orphaned: 0 });
    expect(p.changes[0]).toMatchObject({ action: 'update', remoteId: 'u1', patch: [{ op: 'replace', path: '/name', value: 'Primary database' }] });
    expect(p.changes[0]!.notes).toContain('renamed from "Database" (previousNames): the live StatusPageService keeps its API id and history');
  });

  it('without previousNames a new name is a new service', () => {
    expect(plan([svc('db', 'Primary database')], [liveSvc('u1', 'Database')]).summary.create).toBe(1);
  });

  it('a service that still has the new name wins; a previous name another definition owns never moves', () => {
    const both = plan([svc('db', 'Primary database', ['Database'])], [liveSvc('u1', 'Database'), liveSvc('u2', 'Primary database')]);
    expect(both.changes[0]).toMatchObject({ action: 'noop', remoteId: 'u2' });
    // "Database" is also defined as its own service (listed after): it keeps it, whatever the order.
    const owned = plan([svc('db', 'Primary database', ['Database']), svc('old', 'Database')], [liveSvc('u1', 'Database')]);
    expect(owned.changes.map((c) => [c.id, c.action, c.remoteId])).toEqual([
      ['db', 'create', undefined],
      ['old', 'noop', 'u1'],
    ]);
  });
});
