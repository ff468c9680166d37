import { describe, expect, it } from 'vitest';
import { assemblePlan } from '../../src/plan/index.js';
import type { Plan } from '../../src/plan/types.js';
import { judgeRoundTrip } from '../../src/import/verify.js';
import { def, live, liveTcp, project } from './plan/fixtures.js';

const NOW = new Date('2026-02-03T04:05:06.000Z');
const plan = (defs: Parameters<typeof project>[0], state: Parameters<typeof live>[0]): Plan =>
  assemblePlan({ project: project(defs), live: live(state), apiUrl: 'http://127.0.0.1:4010', prune: false, now: NOW });

const adopting = (adopt: string, over: Record<string, unknown> = {}) =>
  def('TcpCheck', 'db', { name: 'DB', request: { hostname: 'db.internal', port: 5432 }, tags: ['team'], ...over }, { adopt });

describe('adoption (definitions written by mac import)', () => {
  it('matches an untagged check by its API id: the only change is the ownership tag', () => {
    const p = plan([adopting('u9')], { TcpCheck: [liveTcp('u9', 'DB', ['team'])] });
    expect(p.warnings).toEqual([]);
    expect(p.changes).toHaveLength(1);
    expect(p.changes[0]).toMatchObject({ action: 'update', remoteId: 'u9' });
    expect(p.changes[0].patch.every((op) => op.path.startsWith('/tags'))).toBe(true);
    const verdict = judgeRoundTrip(p, [{ kind: 'TcpCheck', id: 'db', liveTags: ['team'] }], (id) => `mac:shop/${id}`);
    expect(verdict).toMatchObject({ adoptions: ['TcpCheck/db'], differences: [] });
  });
  it('prefers the tag once apply has added it (adopt is then inert)', () => {
    const p = plan([adopting('u9')], { TcpCheck: [liveTcp('u9', 'DB', ['team', 'mac:shop/db'])] });
    expect(p.summary).toMatchObject({ update: 0, noop: 1 });
  });
  it('judges any other field difference of an adopted check as a difference', () => {
    const p = plan([adopting('u9', { frequency: 5 })], { TcpCheck: [liveTcp('u9', 'DB', ['team'])] });
    const verdict = judgeRoundTrip(p, [{ kind: 'TcpCheck', id: 'db', liveTags: ['team'] }], (id) => `mac:shop/${id}`);
    expect(verdict.adoptions).toEqual([]);
    expect(verdict.differences[0].ops.map((op) => op.path)).toContain('/frequency');
  });
  it('never takes over a check another project owns, and says so', () => {
    const p = plan([adopting('u9')], { TcpCheck: [liveTcp('u9', 'DB', ['mac:billing/db'])] });
    expect(p.changes[0].action).toBe('create');
    expect(p.warnings.join('\n')).toContain('already managed (tag of project "billing")');
  });
  it('plans a create, with a warning, when the adopted check is gone', () => {
    const p = plan([adopting('gone')], { TcpCheck: [liveTcp('u9', 'DB', [])] });
    expect(p.changes[0].action).toBe('create');
    expect(p.warnings.join('\n')).toContain('adopts gone, which is not a live TcpCheck');
  });
});
