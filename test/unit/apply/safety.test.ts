import { describe, expect, it } from 'vitest';
import { checkDeleteOwnership, checkDeletes } from '../../../src/apply/safety.js';
import type { Plan, PlannedChange } from '../../../src/plan/types.js';
import { Refused } from '../../../src/errors.js';
import { change } from './fixtures.js';

function plan(changes: PlannedChange[], noop = 0): Plan {
  const count = (a: string) => changes.filter((c) => c.action === a).length;
  return {
    version: 1,
    project: 'shop',
    createdAt: '2025-01-01T00:00:00.000Z',
    apiUrl: 'http://127.0.0.1:4010',
    summary: { create: count('create'), update: count('update'), delete: count('delete'), noop },
    changes,
    warnings: [],
  };
}
const del = (i: number) => change({ kind: 'TcpCheck', id: `c${i}`, action: 'delete', remoteId: `r${i}` });

describe('checkDeletes', () => {
  it('allows up to --max-deletes and refuses one more, naming the resources and the flag', () => {
    const deletes = Array.from({ length: 3 }, (_, i) => del(i));
    expect(() => checkDeletes(plan(deletes, 5), 3)).not.toThrow();
    let err: unknown;
    try {
      checkDeletes(plan(deletes, 5), 2);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Refused);
    expect((err as Refused).message).toBe('the plan deletes 3 resources, more than --max-deletes 2: TcpCheck/c0, TcpCheck/c1, TcpCheck/c2');
    expect((err as Refused).hint).toContain('--max-deletes 3');
  });

  it('refuses to delete every managed resource even within the limit, creates notwithstanding', () => {
    expect(() => checkDeletes(plan([del(1), change({ kind: 'TcpCheck', id: 'new' })], 0), 10)).toThrow(/deletes every resource project "shop" manages/);
    expect(() => checkDeletes(plan([del(1), change({ kind: 'TcpCheck', id: 'kept', action: 'update', remoteId: 'k' })], 0), 10)).not.toThrow();
  });

  it('lets explicit tombstones (deletes with a defining file) and destroy empty a project, never pruning', () => {
    const tomb = (i: number) => change({ kind: 'TcpCheck', id: `t${i}`, action: 'delete', remoteId: `t${i}`, file: 'checks.yaml', line: i });
    expect(() => checkDeletes(plan([tomb(1), tomb(2)], 0), 10)).not.toThrow();
    expect(() => checkDeletes(plan([tomb(1), del(2)], 0), 10)).toThrow(/keeps none/);
    expect(() => checkDeletes(plan([del(1), del(2)], 0), 10, { destroy: true })).not.toThrow();
    // --max-deletes holds for all three.
    expect(() => checkDeletes(plan([tomb(1), tomb(2)], 0), 1)).toThrow(/more than --max-deletes 1/);
    expect(() => checkDeletes(plan([del(1), del(2)], 0), 1, { destroy: true })).toThrow(/more than --max-deletes 1/);
  });

  it('has nothing to say about a plan without deletes', () => {
    expect(() => checkDeletes(plan([change({ kind: 'Snippet', id: 's' })]), 0)).not.toThrow();
  });
});

describe('checkDeleteOwnership', () => {
  it('refuses a check delete whose live object lacks the ownership tag, and only checks', () => {
    const p = plan([del(1), del(2), change({ kind: 'Snippet', id: 's', action: 'delete', remoteId: 4 })], 3);
    const tags = new Map<string, string[] | undefined>([
      ['TcpCheck/c1', ['team', 'mac:shop/c1']],
      ['TcpCheck/c2', ['mac:other/c2']],
    ]);
    expect(() => checkDeleteOwnership(p, tags)).toThrow('refusing to delete check without the tag mac:shop/<id>: TcpCheck/c2 (id r2)');
    tags.set('TcpCheck/c2', ['mac:shop/c2']);
    expect(() => checkDeleteOwnership(p, tags)).not.toThrow();
  });
});
