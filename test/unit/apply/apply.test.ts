import { describe, expect, it } from 'vitest';
import { applyPlan, type ApplyAccount } from '../../../src/apply/apply.js';
import type { Plan, PlannedChange } from '../../../src/plan/types.js';
import { Refused } from '../../../src/errors.js';
import { change } from './fixtures.js';

function plan(changes: PlannedChange[], noop = 1): Plan {
  const count = (a: string) => changes.filter((c) => c.action === a).length;
  return {
    version: 1,
    project: 'shop',
    createdAt: '',
    apiUrl: 'http://x',
    summary: { create: count('create'), update: count('update'), delete: count('delete'), noop },
    changes,
    warnings: [],
  };
}

function account(live: Record<string, Record<string, unknown> | null>, overrides: Partial<ApplyAccount> = {}) {
  const performed: string[] = [];
  let requests = 0;
  const a: ApplyAccount = {
    readLive: async (changes) => new Map(changes.map((c) => [`${c.kind}/${c.id}`, live[`${c.kind}/${c.id}`] ?? null])),
    fingerprint: (_k, obj) => `fp:${String(obj.v)}`,
    perform: async (c) => {
      performed.push(`${c.action} ${c.kind}/${c.id}`);
      requests++;
      return c.action === 'create' ? { remoteId: `new-${c.id}` } : {};
    },
    converge: async () => [],
    requests: () => requests,
    ...overrides,
  };
  return { a, performed };
}

const opts = { maxDeletes: 10, concurrency: 4 };

describe('applyPlan', () => {
  it('applies, counts and runs the convergence check over applied changes with their new ids', async () => {
    let converged: string[] = [];
    const { a, performed } = account(
      { 'TcpCheck/old': { v: 1, tags: ['mac:shop/old'] }, 'Snippet/s': { v: 2 } },
      { converge: async (applied) => ((converged = applied.map((x) => `${x.change.kind}/${x.change.id}=${x.change.remoteId}`)), []) },
    );
    const result = await applyPlan(
      plan([
        change({ kind: 'TcpCheck', id: 'new', desired: { name: 'n' } }),
        change({ kind: 'Snippet', id: 's', action: 'update', remoteId: 5, liveFingerprint: 'fp:2', desired: { name: 's' } }),
        change({ kind: 'TcpCheck', id: 'old', action: 'delete', remoteId: 'o', liveFingerprint: 'fp:1' }),
      ]),
      a,
      opts,
    );
    expect(performed).toEqual(['update Snippet/s', 'create TcpCheck/new', 'delete TcpCheck/old']);
    expect(result.summary).toEqual({ applied: 3, failed: 0, skipped: 0, unchanged: 1 });
    expect(result.requests).toBe(3);
    expect(converged.sort()).toEqual(['Snippet/s=5', 'TcpCheck/new=new-new', 'TcpCheck/old=o']);
    expect(result.convergence).toEqual({ checked: 3, issues: [] });
  });

  it('refuses a stale plan before writing anything', async () => {
    const { a, performed } = account({ 'Snippet/s': { v: 3 } });
    const p = plan([change({ kind: 'Snippet', id: 's', action: 'update', remoteId: 5, liveFingerprint: 'fp:2', desired: {} })]);
    await expect(applyPlan(p, a, opts)).rejects.toThrow(/Snippet\/s \(id 5\): changed since the plan/);
    expect(performed).toEqual([]);
  });

  it('refuses to delete a check that lost its ownership tag', async () => {
    const { a, performed } = account({ 'TcpCheck/old': { v: 1, tags: [] } });
    const p = plan([change({ kind: 'TcpCheck', id: 'old', action: 'delete', remoteId: 'o', liveFingerprint: 'fp:1' })]);
    await expect(applyPlan(p, a, opts)).rejects.toBeInstanceOf(Refused);
    expect(performed).toEqual([]);
  });

  it('reports convergence issues and leaves the check out when nothing applied', async () => {
    const issue = { kind: 'Snippet' as const, id: 's', field: '/script', message: 'live "a", defined "b"' };
    const { a } = account({}, { converge: async () => [issue] });
    const result = await applyPlan(plan([change({ kind: 'Snippet', id: 's', desired: {} })]), a, opts);
    expect(result.convergence).toEqual({ checked: 1, issues: [issue] });
    const empty = await applyPlan(plan([]), account({}).a, opts);
    expect(empty.convergence).toBeUndefined();
  });
});
