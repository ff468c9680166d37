import { describe, expect, it } from 'vitest';
import type { Plan, PlannedChange } from '../../src/plan/types.js';
import { describeDifferences, judgeRoundTrip, type WrittenResource } from '../../src/import/verify.js';

const tag = (id: string) => `mac:shop/${id}`;

function plan(changes: PlannedChange[]): Plan {
  return {
    version: 1,
    project: 'shop',
    createdAt: '2026-01-01T00:00:00.000Z',
    apiUrl: 'http://127.0.0.1:4010',
    summary: { create: 0, update: 0, delete: 0, noop: 0 },
    changes,
    warnings: [],
  };
}

const update = (kind: PlannedChange['kind'], id: string, patch: PlannedChange['patch'], desired?: Record<string, unknown>): PlannedChange => ({
  action: 'update',
  kind,
  id,
  patch,
  dependsOn: [],
  desired,
  file: 'checks/tcp.yaml',
  line: 4,
});

const written: WrittenResource[] = [
  { kind: 'TcpCheck', id: 'db', liveTags: ['team-a'] },
  { kind: 'TcpCheck', id: 'web', liveTags: [] },
  { kind: 'Snippet', id: 'auth' },
];

describe('judgeRoundTrip', () => {
  it('accepts an update that only adds the ownership tag', () => {
    const p = plan([
      update('TcpCheck', 'db', [{ op: 'add', path: '/tags/1', value: 'team-a' }, { op: 'replace', path: '/tags/0', value: 'mac:shop/db' }], {
        tags: ['mac:shop/db', 'team-a'],
      }),
      update('TcpCheck', 'web', [{ op: 'add', path: '/tags/0', value: 'mac:shop/web' }], { tags: ['mac:shop/web'] }),
    ]);
    const r = judgeRoundTrip(p, written, tag);
    expect(r.adoptions).toEqual(['TcpCheck/db', 'TcpCheck/web']);
    expect(r.differences).toEqual([]);
  });
  it('rejects a tags-only update that also drops or adds another tag', () => {
    const p = plan([update('TcpCheck', 'db', [{ op: 'replace', path: '/tags/0', value: 'mac:shop/db' }], { tags: ['mac:shop/db'] })]);
    expect(judgeRoundTrip(p, written, tag).differences.map((d) => d.id)).toEqual(['db']);
  });
  it('rejects an update that touches any other field, listing every operation', () => {
    const p = plan([
      update('TcpCheck', 'web', [
        { op: 'add', path: '/tags/0', value: 'mac:shop/web' },
        { op: 'replace', path: '/frequency', value: 5 },
      ], { tags: ['mac:shop/web'], frequency: 5 }),
    ]);
    const r = judgeRoundTrip(p, written, tag);
    expect(r.adoptions).toEqual([]);
    expect(describeDifferences(r.differences)).toEqual([
      '  update TcpCheck/web (checks/tcp.yaml:4)',
      '    add /tags/0: "mac:shop/web"',
      '    replace /frequency: 5',
    ]);
  });
  it('never counts an update of a non-check as adoption', () => {
    const p = plan([update('Snippet', 'auth', [{ op: 'add', path: '/tags/0', value: 'mac:shop/auth' }], { tags: ['mac:shop/auth'] })]);
    expect(judgeRoundTrip(p, written, tag).differences).toHaveLength(1);
  });
  it('rejects creates of written resources and ignores changes to definitions it did not write', () => {
    const p = plan([
      { action: 'create', kind: 'Snippet', id: 'auth', patch: [], dependsOn: [] },
      { action: 'update', kind: 'Snippet', id: 'older', patch: [{ op: 'replace', path: '/script', value: 'x' }], dependsOn: [] },
      { action: 'noop', kind: 'TcpCheck', id: 'db', patch: [], dependsOn: [] },
    ]);
    const r = judgeRoundTrip(p, written, tag);
    expect(r.differences.map((d) => `${d.action} ${d.kind}/${d.id}`)).toEqual(['create Snippet/auth']);
    expect(r.unrelated).toBe(1);
    expect(describeDifferences(r.differences)).toContain('    not matched to any live resource: it would be created');
  });
});
