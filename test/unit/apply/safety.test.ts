import { describe, expect, it } from 'vitest';
import { checkDeletes, checkOwnership } from '../../../src/apply/safety.js';
import { noOwnership } from '../../../src/plan/record.js';
import type { Plan, PlannedChange } from '../../../src/plan/types.js';
import { Refused } from '../../../src/errors.js';
import { change } from './fixtures.js';

function plan(given: PlannedChange[], noop = 0): Plan {
  // Unchanged resources are noop changes: the guards count the changes, never the summary.
  const changes = [...given, ...Array.from({ length: noop }, (_, i) => change({ kind: 'Snippet', id: `kept${i}`, action: 'noop', remoteId: `k${i}` }))];
  const count = (a: string) => changes.filter((c) => c.action === a).length;
  return {
    version: 1,
    project: 'shop',
    createdAt: '2025-01-01T00:00:00.000Z',
    apiUrl: 'http://127.0.0.1:4010',
    summary: { create: count('create'), update: count('update'), delete: count('delete'), noop: count('noop') },
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

describe('the pruning guard', () => {
  it('counts what the project keeps from the changes, whatever the summary says', () => {
    const p = plan([del(1)]);
    expect(() => checkDeletes({ ...p, summary: { ...p.summary, update: 5, noop: 5 } }, 10)).toThrow(/keeps none/);
    // A tombstone already gone is no resource kept.
    expect(() => checkDeletes(plan([del(1), change({ kind: 'Snippet', id: 'gone', action: 'noop' })]), 10)).toThrow(/keeps none/);
  });
});

describe('checkOwnership', () => {
  const live = (entries: Array<[string, Record<string, unknown> | null]>) => new Map(entries);

  it('refuses a check delete whose live object lacks the ownership tag, naming the operation', () => {
    const p = plan([del(1), del(2)], 3);
    const objs = live([
      ['TcpCheck/c1', { tags: ['team', 'mac:shop/c1'] }],
      ['TcpCheck/c2', { tags: ['mac:other/c2'] }],
    ]);
    expect(() => checkOwnership(p, objs)).toThrow('delete TcpCheck/c2 (id r2): the live check lacks the tag mac:shop/c2 (it belongs to project "other")');
    objs.set('TcpCheck/c2', { tags: ['mac:shop/c2'] });
    expect(() => checkOwnership(p, objs)).not.toThrow();
  });

  it("refuses an update retargeted to another project's check; untagged (adopted) and renamed checks pass", () => {
    const upd = change({ kind: 'TcpCheck', id: 'db', action: 'update', remoteId: 'victim' });
    expect(() => checkOwnership(plan([upd]), live([['TcpCheck/db', { tags: ['mac:other/db'] }]]))).toThrow('update TcpCheck/db (id victim): the live check belongs to project "other"');
    expect(() => checkOwnership(plan([upd]), live([['TcpCheck/db', { tags: ['team'] }]]))).not.toThrow();
    expect(() => checkOwnership(plan([upd]), live([['TcpCheck/db', { tags: ['mac:shop/old-db'] }]]))).not.toThrow();
  });

  it("refuses writes to what another project records, and a pruned delete this project does not record", () => {
    const ownership = noOwnership();
    ownership.foreign.set('Dashboard', new Map([['77', 'other']]));
    ownership.own.set('Snippet', new Map([['s1', '5']]));
    const upd = change({ kind: 'Dashboard', id: 'main', action: 'update', remoteId: 77 });
    expect(() => checkOwnership(plan([upd]), live([]), ownership)).toThrow('update Dashboard/main (id 77): project "other" records it as its own');
    const pruned = (remoteId: string) => change({ kind: 'Snippet', id: 's1', action: 'delete', remoteId });
    expect(() => checkOwnership(plan([pruned('5')], 1), live([]), ownership)).not.toThrow();
    expect(() => checkOwnership(plan([pruned('6')], 1), live([]), ownership)).toThrow(/delete Snippet\/s1 \(id 6\): a delete without a definition/);
    // A tombstone (it has a file) of an object nobody records is the user's word.
    const tomb = change({ kind: 'Snippet', id: 's2', action: 'delete', remoteId: '9', file: 'a.yaml', line: 1 });
    expect(() => checkOwnership(plan([tomb], 1), live([]), ownership)).not.toThrow();
  });
});
