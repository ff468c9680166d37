import { describe, expect, it } from 'vitest';
import { assemblePlan } from '../../../src/plan/index.js';
import { assemblePlanYielding, type PlanInput } from '../../../src/plan/assemble.js';
import { def, live, liveTcp, project } from './fixtures.js';

// `mac plan` assembles in slices, the event loop free between them: the plan must be the very
// one the synchronous assembly gives, whatever the slice, and the loop must turn meanwhile.

const NOW = new Date('2026-02-03T04:05:06.000Z');

/** Checks of every outcome (noop, update, create, orphan) and a snippet they reference. */
function input(n: number): PlanInput {
  const defs = [def('Snippet', 'setup', { name: 'Setup', script: 'console.log(1)' })];
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    defs.push(def('TcpCheck', `c${i}`, { name: `C${i}`, request: { hostname: 'db.internal', port: 5432 }, frequency: i % 3 === 0 ? 5 : 10 }));
    if (i % 4 !== 0) items.push(liveTcp(`u${i}`, `C${i}`, [`mac:shop/c${i}`]));
  }
  items.push(liveTcp('gone', 'Gone', ['mac:shop/gone']));
  return { project: project(defs), live: live({ TcpCheck: items, Snippet: [] }), apiUrl: 'http://127.0.0.1:4010', prune: false, now: NOW };
}

describe('assemblePlanYielding', () => {
  it('gives the plan assemblePlan gives, byte for byte, for any slice size', async () => {
    const expected = JSON.stringify(assemblePlan(input(40)));
    const p = JSON.parse(expected) as { summary: Record<string, number> };
    expect(p.summary).toEqual({ create: 11, update: 10, delete: 0, noop: 20, orphaned: 1 });
    for (const every of [1, 3, 7, 250, Infinity]) expect(JSON.stringify(await assemblePlanYielding(input(40), every))).toBe(expected);
  });

  it('lets the event loop turn between slices', async () => {
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await assemblePlanYielding(input(200), 10);
    running = false;
    // About 2 x 200 / 10 slices (desired bodies, then changes): the loop turned between them.
    expect(turns).toBeGreaterThanOrEqual(20);
  });

  it('with prune, deletes in the same order as the synchronous assembly', async () => {
    const withPrune = { ...input(12), prune: true };
    expect(JSON.stringify(await assemblePlanYielding(withPrune, 2))).toBe(JSON.stringify(assemblePlan({ ...input(12), prune: true })));
  });
});
