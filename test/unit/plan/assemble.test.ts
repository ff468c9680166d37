import { describe, expect, it } from 'vitest';
import { assemblePlan, requestBody, fingerprint, findLive } from '../../../src/plan/index.js';
import type { Plan } from '../../../src/plan/types.js';
import { def, live, liveTcp, project } from './fixtures.js';

const NOW = new Date('2026-02-03T04:05:06.000Z');
const plan = (defs: Parameters<typeof project>[0], state: Parameters<typeof live>[0], prune = false): Plan =>
  assemblePlan({ project: project(defs), live: live(state), apiUrl: 'http://127.0.0.1:4010', prune, now: NOW });

const tcp = (over: Record<string, unknown> = {}) => def('TcpCheck', 'db', { name: 'DB', request: { hostname: 'db.internal', port: 5432 }, ...over });

describe('assemblePlan: checks', () => {
  it('plans a create with the ownership tag and server defaults made explicit', () => {
    const p = plan([tcp()], { TcpCheck: [] });
    expect(p.summary).toEqual({ create: 1, update: 0, delete: 0, noop: 0, orphaned: 0 });
    const c = p.changes[0];
    expect(c.action).toBe('create');
    expect(c.desired).toMatchObject({ name: 'DB', tags: ['mac:shop/db'], frequency: 10, degradedResponseTime: 3000, request: { ipFamily: 'IPv4', data: null } });
    expect(c.patch.map((op) => op.path)).toContain('/request');
    expect(c.file).toBe('defs/db.yaml');
  });

  it('is a noop against the object the service stored (defaults, nulls, server-owned fields)', () => {
    const p = plan([tcp({ tags: ['b', 'a'] })], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db', 'a', 'b'], { locations: null })] });
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 1, orphaned: 0 });
    expect(p.changes[0].liveFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('shows a changed field as exactly one replace, with the old value', () => {
    const p = plan([tcp({ frequency: 1 })], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] });
    expect(p.changes[0]).toMatchObject({ action: 'update', remoteId: 'u1' });
    expect(p.changes[0].patch).toEqual([{ op: 'replace', path: '/frequency', value: 1, oldValue: 10 }]);
  });

  it('treats a rename as an update of the tagged check', () => {
    const p = plan([tcp({ name: 'Primary DB' })], { TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] });
    expect(p.changes[0].action).toBe('update');
    expect(p.changes[0].patch).toEqual([{ op: 'replace', path: '/name', value: 'Primary DB', oldValue: 'DB' }]);
  });

  it('warns about a same-named check without the tag and never adopts it', () => {
    const p = plan([tcp()], { TcpCheck: [liveTcp('u9', 'DB', ['team'])] });
    expect(p.changes[0].action).toBe('create');
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0]).toContain('u9');
    expect(p.warnings[0]).toContain('mac import');
  });

  it('deletes an owned check that is no longer defined only with --prune', () => {
    const state = { TcpCheck: [liveTcp('u1', 'Old', ['mac:shop/old']), liveTcp('u2', 'Other', ['mac:other/x'])] };
    const without = plan([], state);
    expect(without.changes).toEqual([]);
    expect(without.summary.orphaned).toBe(1);
    expect(without.orphaned).toEqual([{ kind: 'TcpCheck', id: 'old', name: 'Old', remoteId: 'u1' }]);
    const pruned = plan([], state, true);
    expect(pruned.summary).toMatchObject({ delete: 1, orphaned: 0 });
    expect(pruned.orphaned).toBeUndefined();
    expect(pruned.changes).toHaveLength(1);
    expect(pruned.changes[0]).toMatchObject({ action: 'delete', kind: 'TcpCheck', id: 'old', remoteId: 'u1' });
  });

  it('deletes on a state: absent tombstone', () => {
    const p = plan([tcp({}), def('TcpCheck', 'gone', {}, { state: 'absent' })], {
      TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db']), liveTcp('u2', 'Gone', ['mac:shop/gone'])],
    });
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 1, noop: 1, orphaned: 0 });
    expect(p.changes.find((c) => c.action === 'delete')).toMatchObject({ id: 'gone', remoteId: 'u2' });
  });
});

describe('assemblePlan: references', () => {
  const channel = def('AlertChannel', 'oncall', { type: 'EMAIL', config: { address: 'oncall@example.com' } });
  const liveChannel = { id: 4, type: 'EMAIL', config: { address: 'oncall@example.com' }, sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false, subscriptions: [] };

  it('marks a reference to a target being created as known after apply', () => {
    const p = plan([channel, { ...tcp(), refs: { alertChannels: ['oncall'] } }], { AlertChannel: [], TcpCheck: [] });
    const check = p.changes.find((c) => c.kind === 'TcpCheck')!;
    expect(check.desired!.alertChannelSubscriptions).toEqual([{ alertChannelId: { $ref: 'AlertChannel/oncall' }, activated: true }]);
    expect(check.dependsOn).toEqual(['AlertChannel/oncall']);
    expect(requestBody(check, new Map([['AlertChannel/oncall', 12]])).alertChannelSubscriptions).toEqual([{ alertChannelId: 12, activated: true }]);
  });

  it('resolves a reference to a live target to its id and sees no change when subscribed', () => {
    const p = plan([channel, { ...tcp(), refs: { alertChannels: ['oncall'] } }], {
      AlertChannel: [liveChannel],
      TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'], { alertChannelSubscriptions: [{ alertChannelId: 4, activated: true }] })],
    });
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 2, orphaned: 0 });
  });

  it('--changed-since plans everything and marks the changes of the changed files', () => {
    const check = { ...tcp(), file: 'checks.yaml', refs: { alertChannels: ['oncall'] } };
    const other = def('Snippet', 'unrelated', { name: 'u', script: 'x' }, { file: 'snippets.yaml' });
    const p = assemblePlan({
      project: project([channel, check, other]),
      live: live({ AlertChannel: [], TcpCheck: [], Snippet: [] }),
      apiUrl: 'x',
      prune: false,
      now: NOW,
      changedSince: { ref: 'main', files: ['checks.yaml'] },
    });
    expect(p.changes.map((c) => `${c.kind}/${c.id} ${c.inChangedFiles ?? false}`)).toEqual(['Snippet/unrelated false', 'AlertChannel/oncall false', 'TcpCheck/db true']);
    expect(p.summary).toEqual({ create: 3, update: 0, delete: 0, noop: 0, orphaned: 0 });
    expect(p.changedSince).toEqual({ ref: 'main', files: ['checks.yaml'] });
  });

  it('--only-changed-since plans the subset plus the creates it depends on, says so and counts what it left out', () => {
    const check = { ...tcp(), file: 'checks.yaml', refs: { alertChannels: ['oncall'] } };
    const other = def('Snippet', 'unrelated', { name: 'u', script: 'x' }, { file: 'snippets.yaml' });
    const p = assemblePlan({
      project: project([channel, check, other]),
      live: live({ AlertChannel: [], TcpCheck: [], Snippet: [] }),
      apiUrl: 'x',
      prune: false,
      now: NOW,
      changedSince: { ref: 'main', files: ['checks.yaml'], only: true },
    });
    expect(p.changes.map((c) => `${c.kind}/${c.id}`)).toEqual(['AlertChannel/oncall', 'TcpCheck/db']);
    expect(p.changes[0].notes?.join()).toContain('references it');
    expect(p.changedSince).toEqual({ ref: 'main', files: ['checks.yaml'], only: true, leftOut: 1 });
  });
});

describe('assemblePlan: secrets', () => {
  const secretVar = def('EnvironmentVariable', 'API_TOKEN', { key: 'API_TOKEN', value: 's3cr3t-value', secret: true }, { secretPaths: ['/value'], envSources: { '/value': 'API_TOKEN_SRC' } });

  it('never compares a secret value: a variable whose only difference is its value is a noop with a note', () => {
    const p = plan([secretVar], { EnvironmentVariable: [{ key: 'API_TOKEN', value: null, locked: false, secret: true }] });
    expect(p.changes[0].action).toBe('noop');
    expect(p.changes[0].notes?.join()).toContain('cannot be read back');
    expect(JSON.stringify(p)).not.toContain('s3cr3t-value');
  });

  it('--rewrite-secrets turns a resource with a secret into an update that writes it, shown (sensitive) -> (sensitive)', () => {
    const vars = [{ key: 'B', value: 'plain' }, { key: 'A', value: 'check-s3cr3t', secret: true }];
    const checkDef = def('MultiStepCheck', 'flow', { name: 'Flow', script: 'run()', environmentVariables: vars }, { secretPaths: ['/environmentVariables/1/value'] });
    const liveVars = [{ key: 'A', value: null, locked: false, secret: true }, { key: 'B', value: 'plain', locked: false, secret: false }];
    const liveCheck = liveTcp('u1', 'Flow', ['mac:shop/flow'], { checkType: 'MULTI_STEP', script: 'run()', environmentVariables: liveVars });
    const state = { EnvironmentVariable: [{ key: 'API_TOKEN', value: null, locked: false, secret: true }, { key: 'PLAIN', value: 'x', locked: false, secret: false }], MultiStepCheck: [liveCheck] };
    const defs = [secretVar, def('EnvironmentVariable', 'PLAIN', { key: 'PLAIN', value: 'x' }), checkDef];
    expect(plan(defs, state).summary).toEqual({ create: 0, update: 0, delete: 0, noop: 3, orphaned: 0 });
    const p = assemblePlan({ project: project(defs), live: live(state), apiUrl: 'http://127.0.0.1:4010', prune: false, rewriteSecrets: true, now: NOW });
    expect(p.summary).toEqual({ create: 0, update: 2, delete: 0, noop: 1, orphaned: 0 });
    const [variable, plain, check] = p.changes;
    expect(variable).toMatchObject({ action: 'update', patch: [{ op: 'replace', path: '/value', value: '(sensitive)', oldValue: '(sensitive)' }], secrets: [{ path: '/value', env: 'API_TOKEN_SRC' }] });
    expect(variable.notes?.join()).toContain('written again (--rewrite-secrets)');
    expect(plain.action).toBe('noop');
    expect(check).toMatchObject({ action: 'update', patch: [{ op: 'replace', path: '/environmentVariables/0/value', value: '(sensitive)', oldValue: '(sensitive)' }] });
    expect(requestBody(check, new Map(), new Map([['/environmentVariables/0/value', 'check-s3cr3t']])).environmentVariables).toEqual([
      { key: 'A', value: 'check-s3cr3t', locked: false, secret: true },
      { key: 'B', value: 'plain', locked: false, secret: false },
    ]);
    expect(JSON.stringify(p)).not.toContain('s3cr3t');
  });

  it('--rewrite-secrets adds nothing where the patch already writes the secret', () => {
    const p = assemblePlan({ project: project([secretVar]), live: live({ EnvironmentVariable: [{ key: 'API_TOKEN', value: null, locked: true, secret: true }] }), apiUrl: 'x', prune: false, rewriteSecrets: true, now: NOW });
    expect(p.changes[0].patch).toEqual([
      { op: 'replace', path: '/locked', value: false, oldValue: true },
      { op: 'replace', path: '/value', value: '(sensitive)', oldValue: '(sensitive)' },
    ]);
  });

  it('creates with the value masked in the plan and its source recorded', () => {
    const p = plan([secretVar], { EnvironmentVariable: [] });
    const c = p.changes[0];
    expect(c.desired).toEqual({ key: 'API_TOKEN', value: '(sensitive)', locked: false, secret: true });
    expect(c.secrets).toEqual([{ path: '/value', env: 'API_TOKEN_SRC' }]);
    expect(JSON.stringify(p)).not.toContain('s3cr3t-value');
    expect(requestBody(c, new Map(), new Map([['/value', 's3cr3t-value']])).value).toBe('s3cr3t-value');
    expect(() => requestBody(c, new Map())).toThrow(expect.objectContaining({ hint: 'set the environment variable API_TOKEN_SRC' }));
  });

  it('compares a readable credential but shows it as (sensitive) on both sides', () => {
    const hook = (secret: string) => ({ type: 'WEBHOOK', config: { name: 'hook', url: 'https://h.example/x', webhookSecret: secret } });
    const p = plan([def('AlertChannel', 'hook', hook('new-secret-1'), { secretPaths: ['/config/webhookSecret'] })], {
      AlertChannel: [{ id: 3, ...hook('old-secret-0') }],
    });
    expect(p.changes[0].action).toBe('update');
    expect(p.changes[0].patch).toEqual([{ op: 'replace', path: '/config/webhookSecret', value: '(sensitive)', oldValue: '(sensitive)' }]);
    expect(JSON.stringify(p)).not.toMatch(/new-secret-1|old-secret-0/);
  });

  it('masks secret check environment variables inside an added item', () => {
    const d = def('MultiStepCheck', 'flow', {
      name: 'Flow',
      script: 'await page.goto(x)',
      scriptPath: 'flow.spec.js',
      environmentVariables: [{ key: 'PASSWORD', value: 'hunter2', secret: true }],
    }, { secretPaths: ['/environmentVariables/0/value'] });
    const p = plan([d], { MultiStepCheck: [] });
    expect(JSON.stringify(p)).not.toContain('hunter2');
    expect(p.changes[0].notes?.join()).toContain('scriptPath is write-only');
  });
});

describe('identity helpers for apply', () => {
  it('finds the live object of a change by its identity and fingerprints ignore server-owned fields', () => {
    const a = liveTcp('u1', 'DB', ['mac:shop/db']);
    expect(findLive('TcpCheck', 'shop', { id: 'db' }, [liveTcp('u0', 'DB', []), a])).toBe(a);
    expect(findLive('Snippet', 'shop', { id: 's', desired: { name: 'setup', script: 'x' } }, [{ id: 3, name: 'setup', script: 'y' }])).toMatchObject({ id: 3 });
    expect(fingerprint('TcpCheck', a)).toBe(fingerprint('TcpCheck', { ...a, updated_at: '2026-05-05T00:00:00.000Z' }));
    expect(fingerprint('TcpCheck', a)).not.toBe(fingerprint('TcpCheck', { ...a, frequency: 5 }));
  });
});
