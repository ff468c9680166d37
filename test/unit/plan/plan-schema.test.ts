import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../../src/apply/plan-file.js';
import { assemblePlan } from '../../../src/plan/index.js';
import { PlanSchema } from '../../../src/plan/types.js';
import { generateJsonSchemas, PLAN_SCHEMA_FILE } from '../../../src/schema/json-schema.js';
import { def, live, liveTcp, project } from './fixtures.js';

const NOW = new Date('2026-02-03T04:05:06.000Z');

/** A plan with a create (defaulted fields) and an update (replace with oldValue), as `mac plan --out` writes it. */
function savedPlan() {
  const plan = assemblePlan({
    project: project([
      def('EnvironmentVariable', 'TOKEN', { key: 'TOKEN', value: 's3cret', secret: true }, { secretPaths: ['/value'], envSources: { '/value': 'TOKEN' } }),
      def('AlertChannel', 'oncall', { type: 'EMAIL', config: { address: 'oncall@example.com' } }),
      def('TcpCheck', 'db', { name: 'DB', tags: ['team'], request: { hostname: 'db.internal', port: 5432 }, frequency: 1 }),
      def('TcpCheck', 'cache', { name: 'Cache', request: { hostname: 'cache.internal', port: 6379 } }, { refs: { alertChannels: ['oncall'] } }),
    ]),
    live: live({ EnvironmentVariable: [], AlertChannel: [], TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'])] }),
    changedSince: { ref: 'main', files: ['defs/db.yaml', 'defs/cache.yaml', 'defs/TOKEN.yaml', 'defs/oncall.yaml'] },
    apiUrl: 'http://127.0.0.1:4010',
    prune: false,
    now: NOW,
    git: { commit: 'abc', branch: 'main' },
  });
  return JSON.parse(JSON.stringify(plan, null, 2)) as unknown;
}

describe('the plan schema', () => {
  it('round-trips a saved plan through parsePlan with oldValue and defaulted intact', () => {
    const doc = savedPlan();
    const parsed = parsePlan(doc, 'plan.json');
    expect(parsed).toEqual(doc);
    const update = parsed.changes.find((c) => c.action === 'update')!;
    expect(update.patch).toContainEqual({ op: 'replace', path: '/frequency', value: 1, oldValue: 10 });
    expect(update.patch).toContainEqual({ op: 'add', path: '/tags/1', value: 'team', label: 'team' });
    const create = parsed.changes.find((c) => c.id === 'cache')!;
    expect(create.defaulted).toContain('/frequency');
    expect(create.labels).toEqual({ '/alertChannelSubscriptions/0': 'oncall' });
    expect(parsed.changes.find((c) => c.id === 'TOKEN')!.secrets).toEqual([{ path: '/value', env: 'TOKEN' }]);
    expect(JSON.stringify(parsed)).not.toContain('s3cret');
    // Nothing a plan holds is lost on the way (the schema strips fields it does not know).
    expect(parsed).toEqual(doc);
  });

  it('keeps the label of set operations', () => {
    const doc = savedPlan() as { changes: Array<{ patch: unknown[] }> };
    doc.changes[0].patch.push({ op: 'add', path: '/tags/1', value: 'team', label: 'team' });
    expect(parsePlan(doc, 'plan.json').changes[0].patch.at(-1)).toEqual({ op: 'add', path: '/tags/1', value: 'team', label: 'team' });
  });

  it('is the schema plan.schema.json is generated from', () => {
    const json = generateJsonSchemas()[PLAN_SCHEMA_FILE] as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(json.properties)).toEqual(Object.keys(PlanSchema.shape));
    expect(json.required).toEqual(expect.arrayContaining(['version', 'project', 'changes', 'warnings']));
    const change = (json.properties.changes as { items: { properties: Record<string, unknown> } }).items;
    expect(Object.keys(change.properties)).toEqual(expect.arrayContaining(['defaulted', 'secrets', 'notes', 'desired']));
  });
});
