import { describe, expect, it } from 'vitest';
import { assemblePlan, buildDesired, desiredBodies } from '../../../src/plan/index.js';
import { def, live, project } from './fixtures.js';

const stamps = { created_at: '2026-01-01T00:00:00.000Z', updated_at: null };
const planOf = (defs: Parameters<typeof project>[0], items: Parameters<typeof live>[0] = {}) =>
  assemblePlan({ project: project(defs), live: live(items), apiUrl: 'http://127.0.0.1:4010', prune: false, now: new Date(0) });

describe('locked values', () => {
  const variable = (value: string) => def('EnvironmentVariable', 'DB_PASSWORD', { key: 'DB_PASSWORD', value, locked: true });
  it('are masked in a create and compared, shown (sensitive) on both sides, in variables and webhook headers', () => {
    const created = planOf([variable('locked-1-xyz')]);
    expect(JSON.stringify(created)).not.toContain('locked-1-xyz');
    expect(created.changes[0].secrets).toEqual([{ path: '/value' }]);

    const liveVar = { key: 'DB_PASSWORD', value: 'locked-0-xyz', locked: true, secret: false, ...stamps };
    expect(planOf([variable('locked-0-xyz')], { EnvironmentVariable: [liveVar] }).summary.noop).toBe(1);
    const changed = planOf([variable('locked-1-xyz')], { EnvironmentVariable: [liveVar] });
    expect(changed.changes[0].patch).toEqual([{ op: 'replace', path: '/value', value: '(sensitive)', oldValue: '(sensitive)' }]);
    expect(JSON.stringify(changed)).not.toMatch(/locked-[01]-xyz/);

    const hook = def('AlertChannel', 'hook', {
      type: 'WEBHOOK',
      config: { name: 'h', url: 'https://h.example', headers: [{ key: 'Authorization', value: 'Bearer hdr-xyz', locked: true }, { key: 'X', value: 'shown' }], queryParameters: [{ key: 't', value: 'qp-xyz', locked: true }] },
    });
    const p = planOf([hook]);
    expect(JSON.stringify(p)).not.toMatch(/hdr-xyz|qp-xyz/);
    expect(JSON.stringify(p)).toContain('shown');
  });
});

describe('env-read values', () => {
  it('are masked wherever they land, even where sorting moved them, and the name with them', () => {
    const d = def(
      'TcpCheck',
      'db',
      { name: 'db-env-name', tags: ['zz-env-tag', 'aa'], request: { hostname: 'host-env', port: 1 } },
      { envSources: { '/name': 'N', '/tags/0': 'T' }, envPaths: ['/name', '/tags/0', '/request/hostname'] },
    );
    const desired = buildDesired(d, 'shop', (ref) => ({ $ref: ref }));
    expect(desired.body.tags).toEqual(['aa', 'mac:shop/db', 'zz-env-tag']);
    expect(desired.masked.tags).toEqual(['aa', 'mac:shop/db', '(sensitive)']);
    // A moved value comes back from the planned files, not from a variable that named another place.
    expect(desired.secrets).toEqual(expect.arrayContaining([{ path: '/name', env: 'N' }, { path: '/tags/2' }, { path: '/request/hostname' }]));
    const p = planOf([d]);
    expect(p.changes[0].name).toBe('(sensitive)');
    expect(JSON.stringify(p)).not.toMatch(/env-name|env-tag|host-env/);
  });
});

describe('masked values whose variable is not set', () => {
  const secret = def('EnvironmentVariable', 'SR_KEY', { key: 'SR_KEY', value: '${{ env.SR_VAL }}', secret: true }, {
    secretPaths: ['/value'], envSources: { '/value': 'SR_VAL' }, envPaths: ['/value'], missingEnv: { '/value': ['SR_VAL'] },
  });
  it('show (sensitive, not set: NAME), carry missing, warn, and are never a recoverable value', () => {
    const p = planOf([secret]);
    expect(p.changes[0].desired?.value).toBe('(sensitive, not set: SR_VAL)');
    expect(p.changes[0].secrets).toEqual([{ path: '/value', env: 'SR_VAL', missing: ['SR_VAL'] }]);
    expect(p.warnings).toEqual(['EnvironmentVariable/SR_KEY: value (sensitive, not set: SR_VAL): mac apply refuses until SR_VAL is set']);
    expect(desiredBodies([secret], 'shop').get('EnvironmentVariable/SR_KEY')).toEqual({ key: 'SR_KEY', locked: false, secret: true });
  });
  it('are not compared when they read back (a locked value)', () => {
    const locked = def('EnvironmentVariable', 'L', { key: 'L', value: '${{ env.L_VAL }}', locked: true }, { envPaths: ['/value'], missingEnv: { '/value': ['L_VAL'] } });
    const p = planOf([locked], { EnvironmentVariable: [{ key: 'L', value: 'live-value', locked: true, secret: false, ...stamps }] });
    expect(p.summary.noop).toBe(1);
    expect(p.changes[0].notes).toContain('value: (sensitive, not set: L_VAL): not compared; mac apply refuses until L_VAL is set');
  });
});

describe('where apply gets masked values back', () => {
  it('names a variable only for the value that sits in its place (sets are sorted)', () => {
    const d = def(
      'DnsCheck',
      'dns',
      {
        name: 'dns',
        request: { query: 'example.com', recordType: 'A' },
        environmentVariables: [
          { key: 'B', value: 'from-env-b', locked: true },
          { key: 'A', value: 'literal-a', locked: true },
        ],
      },
      { envSources: { '/environmentVariables/0/value': 'B_VAL' }, envPaths: ['/environmentVariables/0/value'] },
    );
    const desired = buildDesired(d, 'shop', (ref) => ({ $ref: ref }));
    expect((desired.body.environmentVariables as Array<{ key: string }>).map((v) => v.key)).toEqual(['A', 'B']);
    // The literal A moved to index 0, where B_VAL was in the spec: it must not be read from B_VAL.
    expect(desired.secrets).toEqual(expect.arrayContaining([{ path: '/environmentVariables/0/value' }, { path: '/environmentVariables/1/value' }]));
    expect(desired.secrets.some((s) => s.env === 'B_VAL')).toBe(false);
  });
});
