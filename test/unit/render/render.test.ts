import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { assemblePlan } from '../../../src/plan/index.js';
import type { Plan } from '../../../src/plan/types.js';
import { renderPlan } from '../../../src/render/index.js';
import { def, live, liveTcp, project } from '../plan/fixtures.js';

const plain = pc.createColors(false);

/** A plan with one of everything: create with a reference, update, rename, secret, delete, noop, warning. */
function fixedPlan(): Plan {
  const defs = [
    def('EnvironmentVariable', 'DB_PASSWORD', { key: 'DB_PASSWORD', value: 'pa55-w0rd-XYZ', secret: true }, { secretPaths: ['/value'], envSources: { '/value': 'DB_PASSWORD' }, file: 'vars.yaml', line: 1 }),
    def('AlertChannel', 'oncall', { type: 'EMAIL', config: { address: 'oncall@example.com' } }, { file: 'alerts.yaml', line: 1 }),
    def('TcpCheck', 'db', { name: 'Primary DB', frequency: 1, request: { hostname: 'db.internal', port: 5432 } }, { file: 'checks/db.yaml', line: 3, refs: { alertChannels: ['oncall'] } }),
    def('TcpCheck', 'cache', { name: 'Cache', request: { hostname: 'cache.internal', port: 6379 } }, { file: 'checks/cache.yaml', line: 1 }),
    def('TcpCheck', 'web', { name: 'Web', locations: ['eu-west-1'], request: { hostname: 'web.internal', port: 443 } }, { file: 'checks/web.yaml', line: 1, refs: { alertChannels: ['oncall'] } }),
  ];
  const p = assemblePlan({
    project: project(defs),
    live: live({
      EnvironmentVariable: [{ key: 'DB_PASSWORD', value: null, locked: false, secret: true }],
      AlertChannel: [],
      TcpCheck: [
        liveTcp('11111111-aaaa', 'DB', ['mac:shop/db']),
        liveTcp('22222222-bbbb', 'Cache', ['mac:shop/cache'], { request: { hostname: 'cache.internal', port: 6379, data: null, assertions: [], ipFamily: 'IPv4' } }),
        liveTcp('33333333-cccc', 'Old', ['mac:shop/old']),
        liveTcp('44444444-dddd', 'Web', ['team-web']),
      ],
    }),
    apiUrl: 'http://127.0.0.1:4010',
    prune: true,
    now: new Date('2026-02-03T04:05:06.000Z'),
    git: { commit: '0123456789abcdef0123456789abcdef01234567', branch: 'main' },
  });
  return p;
}

/** Scrubs absolute paths so that snapshots do not depend on the machine. */
const scrub = (s: string) => s.replaceAll('/repo/monitoring', '<project-dir>');

describe('renderers (snapshots of one fixed plan)', () => {
  const plan = fixedPlan();

  it('text', () => {
    const out = renderPlan(plan, 'text', plain);
    expect(out).toContain('Plan: 2 to create, 1 to update, 1 to delete.');
    expect(scrub(out)).toMatchSnapshot();
  });

  it('markdown', () => {
    const out = renderPlan(plan, 'markdown', plain);
    expect(out.indexOf('| action')).toBeLessThan(out.indexOf('<details>'));
    expect(scrub(out)).toMatchSnapshot();
  });

  it('json is exactly the plan', () => {
    const out = renderPlan(plan, 'json', plain);
    expect(JSON.parse(out)).toEqual(plan);
    expect(scrub(out)).toMatchSnapshot();
  });

  it('a create shows the fields the definition sets and its references, and counts the defaults; JSON keeps them all', () => {
    const text = renderPlan(plan, 'text', plain);
    const web = text.slice(text.indexOf('+ create TcpCheck/web'), text.indexOf('- delete'));
    expect(web.split('\n').map((l) => l.trim()).filter(Boolean)).toEqual([
      '+ create TcpCheck/web "Web"  (checks/web.yaml:1)',
      '+ name: "Web"',
      '+ locations: ["eu-west-1"]',
      '+ tags: ["mac:shop/web"]',
      '+ alertChannels: oncall',
      '+ request: {hostname: "web.internal", port: 443}',
      '+ 19 defaults',
    ]);
    expect(renderPlan(plan, 'markdown', plain)).toContain('+ request: {hostname: "web.internal", port: 443}\n+ 19 defaults\n```');
    const create = plan.changes.find((c) => c.id === 'web')!;
    expect(create.desired).toMatchObject({ activated: true, frequency: 10, degradedResponseTime: 3000, request: { data: null, ipFamily: 'IPv4', assertions: [] } });
    expect(create.defaulted).toContain('/request/ipFamily');
    expect(create.patch).toHaveLength(Object.keys(create.desired!).length);
  });

  it('no format prints a secret value', () => {
    for (const format of ['text', 'markdown', 'json'] as const) expect(renderPlan(plan, format, plain)).not.toContain('pa55-w0rd-XYZ');
  });

  it('colours only through the colour helpers', () => {
    expect(renderPlan(plan, 'text', plain)).not.toContain('\u001b[');
    expect(renderPlan(plan, 'text', pc.createColors(true))).toContain('\u001b[');
  });
});
