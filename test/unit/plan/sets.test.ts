import jsonpatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { assemblePlan, buildDesired, compareObjects, normalizeLive } from '../../../src/plan/index.js';
import { diffSet } from '../../../src/plan/sets.js';
import type { PatchOp } from '../../../src/plan/types.js';
import { describeOp, shownOps } from '../../../src/render/values.js';
import { def, live, liveTcp, project } from './fixtures.js';

const resolveNothing = (ref: string) => ({ $ref: ref });
const tcpBody = (spec: Record<string, unknown>) =>
  buildDesired(def('TcpCheck', 'db', { name: 'DB', request: { hostname: 'db.internal', port: 5432 }, ...spec }), 'shop', resolveNothing).body;
const liveN = (tags: string[], over: Record<string, unknown> = {}) => normalizeLive('TcpCheck', liveTcp('u1', 'DB', tags, over));
/** Applies a patch to a copy of `doc` as any RFC 6902 implementation would. */
const applied = (doc: Record<string, unknown>, patch: PatchOp[]) =>
  jsonpatch.applyPatch(structuredClone(doc), patch.map(({ op, path, value }) => ({ op, path, value }) as jsonpatch.Operation), true).newDocument;

describe('set-like arrays diff as membership', () => {
  const own = 'mac:shop/db';

  it('adding one tag is exactly one add, named by its value', () => {
    const live = liveN([own, 'tier-2', 'team-shop', 'critical']);
    const desired = tcpBody({ tags: ['critical', 'team-platform', 'team-shop', 'tier-2'] });
    const { patch } = compareObjects('TcpCheck', desired, live, []);
    expect(patch).toEqual([{ op: 'add', path: '/tags/2', value: 'team-platform', label: 'team-platform' }]);
    expect(applied(live, patch)).toEqual(desired);
    expect(describeOp(patch[0])).toEqual({ sign: '+', text: 'tags: "team-platform"' });
  });

  it('removing one tag is exactly one remove, with its old value', () => {
    const live = liveN([own, 'a', 'b', 'c']);
    const desired = tcpBody({ tags: ['a', 'c'] });
    const { patch } = compareObjects('TcpCheck', desired, live, []);
    expect(patch).toEqual([{ op: 'remove', path: '/tags/1', oldValue: 'b', label: 'b' }]);
    expect(applied(live, patch)).toEqual(desired);
    expect(describeOp(patch[0])).toEqual({ sign: '-', text: 'tags: "b"' });
  });

  it('a reordering alone is no change, sorted or not', () => {
    expect(compareObjects('TcpCheck', tcpBody({ tags: ['b', 'a'], locations: ['us-east-1', 'eu-west-1'] }), liveN([own, 'a', 'b'], { locations: ['eu-west-1', 'us-east-1'] }), []).patch).toEqual([]);
    expect(diffSet({ pointer: '/tags', key: true }, ['c', 'a', 'b'], ['a', 'b', 'c'])).toEqual([]);
  });

  it('duplicates are members of their own: one add or one remove per extra copy', () => {
    expect(diffSet({ pointer: '/tags', key: true }, ['a', 'b'], ['a', 'a', 'b'])).toEqual([{ op: 'add', path: '/tags/1', value: 'a', label: 'a', valueAt: '/tags/1' }]);
    expect(diffSet({ pointer: '/tags', key: true }, ['a', 'a', 'a', 'b'], ['a', 'b'])).toEqual([
      { op: 'remove', path: '/tags/2', label: 'a', oldAt: '/tags/2' },
      { op: 'remove', path: '/tags/1', label: 'a', oldAt: '/tags/1' },
    ]);
  });

  it('several adds and removes at once stay valid RFC 6902 and give the desired array', () => {
    const live = liveN([own, 'b', 'd', 'f'], { locations: ['eu-west-1', 'us-east-1'] });
    const desired = tcpBody({ tags: ['a', 'c', 'd', 'e', 'g'], locations: ['ap-south-1', 'us-east-1'] });
    const { patch } = compareObjects('TcpCheck', desired, live, []);
    expect(patch.filter((op) => op.path.startsWith('/tags/')).map((op) => op.op)).toEqual(['remove', 'remove', 'add', 'add', 'add', 'add']);
    expect(patch.filter((op) => op.path.startsWith('/locations/'))).toHaveLength(2);
    expect(applied(live, patch)).toEqual(desired);
  });

  it('keyed members: a changed value is one replace inside the member, named by its key', () => {
    const vars = (v: string) => [{ key: 'A', value: '1' }, { key: 'B', value: v }];
    const flowBody = buildDesired(def('MultiStepCheck', 'f', { name: 'flow', script: 'x()', environmentVariables: vars('new') }), 'shop', resolveNothing).body;
    const liveFlow = normalizeLive('MultiStepCheck', { ...liveTcp('u', 'flow', ['mac:shop/f']), checkType: 'MULTI_STEP', script: 'x()', environmentVariables: [{ key: 'B', value: 'old' }, { key: 'A', value: '1' }] });
    const { patch } = compareObjects('MultiStepCheck', flowBody, liveFlow, []);
    expect(patch).toEqual([{ op: 'replace', path: '/environmentVariables/1/value', value: 'new', oldValue: 'old', label: 'B' }]);
    expect(describeOp(patch[0]).text).toBe('environmentVariables[B].value: "old" -> "new"');
  });

  it('a secret member value stays masked wherever the member moves', () => {
    const spec = { name: 'flow', script: 'x()', environmentVariables: [{ key: 'A', value: 'x' }, { key: 'TOKEN', value: 's3cret', secret: true }] };
    const d = buildDesired(def('MultiStepCheck', 'f', spec, { secretPaths: ['/environmentVariables/1/value'] }), 'shop', resolveNothing);
    const liveFlow = normalizeLive('MultiStepCheck', { ...liveTcp('u', 'flow', ['mac:shop/f']), checkType: 'MULTI_STEP', script: 'x()', environmentVariables: [] });
    const { patch } = compareObjects('MultiStepCheck', d.body, liveFlow, d.secrets.map((s) => s.path));
    expect(JSON.stringify(patch)).not.toContain('s3cret');
    expect(patch).toHaveLength(2);
  });

  it("one side's secret member never hides a change of another member at the same index on the other side", () => {
    const spec = { name: 'flow', script: 'x()', environmentVariables: [{ key: 'A', value: 'a', secret: true }, { key: 'B', value: 'new' }, { key: 'C', value: 'c', secret: true }] };
    const d = buildDesired(def('MultiStepCheck', 'f', spec, { secretPaths: ['/environmentVariables/0/value', '/environmentVariables/2/value'] }), 'shop', resolveNothing);
    const liveFlow = normalizeLive('MultiStepCheck', {
      ...liveTcp('u', 'flow', ['mac:shop/f']),
      checkType: 'MULTI_STEP',
      script: 'x()',
      environmentVariables: [{ key: 'B', value: 'old' }, { key: 'C', value: null, secret: true }],
    });
    const { patch } = compareObjects('MultiStepCheck', d.body, liveFlow, d.secrets.map((s) => s.path));
    expect(patch).toContainEqual({ op: 'replace', path: '/environmentVariables/0/value', value: 'new', oldValue: 'old', label: 'B' });
    expect(patch).toContainEqual({ op: 'add', path: '/environmentVariables/0', value: { key: 'A', value: '(sensitive)', locked: false, secret: true }, label: 'A' });
    expect(patch).toHaveLength(2);
  });
});

describe('subscriptions in a plan', () => {
  const channel = (id: number, address: string) => ({ id, type: 'EMAIL', config: { address }, sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false });
  const channels = [def('AlertChannel', 'oncall-email', { type: 'EMAIL', config: { address: 'oncall@example.com' } }), def('AlertChannel', 'ops-email', { type: 'EMAIL', config: { address: 'ops@example.com' } })];
  const check = (subscribed: string[]) => def('TcpCheck', 'db', { name: 'DB', request: { hostname: 'db.internal', port: 5432 } }, { refs: { alertChannels: subscribed } });
  const sub = (alertChannelId: number) => ({ alertChannelId, activated: true });

  it('adding a channel is one add, labelled with its logical id; the raw id stays in the value', () => {
    const p = assemblePlan({
      project: project([...channels, check(['oncall-email', 'ops-email'])]),
      live: live({ AlertChannel: [channel(11, 'oncall@example.com'), channel(12, 'ops@example.com')], TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'], { alertChannelSubscriptions: [sub(11), sub(99)] })] }),
      apiUrl: 'http://x',
      prune: false,
    });
    const update = p.changes.find((c) => c.kind === 'TcpCheck')!;
    expect(update.patch).toEqual([
      { op: 'remove', path: '/alertChannelSubscriptions/1', oldValue: sub(99), label: '#99' },
      { op: 'add', path: '/alertChannelSubscriptions/1', value: sub(12), label: 'ops-email' },
    ]);
    expect(shownOps(update).ops.map((op) => describeOp(op).text)).toEqual(['alertChannels: #99', 'alertChannels: ops-email']);
  });

  it('a create names each subscribed channel by its logical id (labels), one line per channel', () => {
    const p = assemblePlan({
      project: project([...channels, check(['ops-email', 'oncall-email'])]),
      live: live({ AlertChannel: [channel(11, 'oncall@example.com')], TcpCheck: [] }),
      apiUrl: 'http://x',
      prune: false,
    });
    const create = p.changes.find((c) => c.kind === 'TcpCheck')!;
    expect(create.desired!.alertChannelSubscriptions).toEqual([sub(11), { alertChannelId: { $ref: 'AlertChannel/ops-email' }, activated: true }]);
    expect(create.labels).toEqual({ '/alertChannelSubscriptions/0': 'oncall-email', '/alertChannelSubscriptions/1': 'ops-email' });
    const lines = shownOps(create).ops.map((op) => describeOp(op).text);
    expect(lines.filter((l) => l.startsWith('alertChannel'))).toEqual(['alertChannels: oncall-email', 'alertChannels: ops-email']);
  });

  it('a channel still to be created reads by its logical id too', () => {
    const p = assemblePlan({ project: project([...channels, check(['oncall-email'])]), live: live({ AlertChannel: [], TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] }), apiUrl: 'http://x', prune: false });
    const update = p.changes.find((c) => c.kind === 'TcpCheck')!;
    expect(update.patch).toEqual([{ op: 'add', path: '/alertChannelSubscriptions/0', value: { alertChannelId: { $ref: 'AlertChannel/oncall-email' }, activated: true }, label: 'oncall-email' }]);
    expect(describeOp(update.patch[0])).toEqual({ sign: '+', text: 'alertChannels: oncall-email' });
  });
});

describe('no server default shown as added', () => {
  it('a new assertion in an update shows what the definition wrote; its regex default is counted', () => {
    const assertion = { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500' };
    const p = assemblePlan({
      project: project([def('TcpCheck', 'db', { name: 'DB', request: { hostname: 'db.internal', port: 5432, assertions: [assertion] } })]),
      live: live({ TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] }),
      apiUrl: 'http://x',
      prune: false,
    });
    const update = p.changes[0];
    expect(update.patch).toEqual([{ op: 'add', path: '/request/assertions/0', value: { ...assertion, regex: "" } }]);
    expect(update.defaulted).toEqual(['/request/assertions/0/regex']);
    const shown = shownOps(update);
    expect(shown.ops.map((op) => describeOp(op).text)).toEqual(['request.assertions[0]: {source: "RESPONSE_TIME", comparison: "LESS_THAN", target: "500"}']);
    expect(shown.defaults).toBe(1);
  });

  it('a changed field that is at its default in the definition is still shown', () => {
    const p = assemblePlan({ project: project([def('TcpCheck', 'db', { name: 'DB', request: { hostname: 'db.internal', port: 5432 } })]), live: live({ TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'], { frequency: 5 })] }), apiUrl: 'http://x', prune: false });
    expect(shownOps(p.changes[0]).ops).toEqual([{ op: 'replace', path: '/frequency', value: 10, oldValue: 5 }]);
  });
});
