import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiOk, startServe } from '../helpers/serve.js';
import { FREQUENCY, MINUTES, RECORDED, TIMEOUT_MS, agentIds, expectExactlyOnce, agentFixture, location, runScenario, sqliteRows, sqliteSessions, startAgent, urlChecks, type Agent, type QueuedRow } from '../helpers/agent.js';

describe('mac agent: exactly once per location (--time-scale 60)', { timeout: TIMEOUT_MS }, () => {
  const fx = agentFixture({ stateDir: true });

  it(`two agents on A, one on B, 20 checks until each ran ${RECORDED} times per location (at most ${MINUTES} simulated minutes): every due run once per location, by an agent of it; the service ran none`, async () => {
    const state = join(fx.dir, 'once.db');
    const s = await startServe(['--time-scale', '60', '--state', state, '--rate-limit', '0/60']);
    const agents: Agent[] = [];
    try {
      const a = await location(s, 'site-a');
      const b = await location(s, 'site-b');
      agents.push(startAgent(s, a.key), startAgent(s, a.key), startAgent(s, b.key));
      const checks = await urlChecks(s, 20, fx.target.url, ['site-a', 'site-b'], FREQUENCY);
      await runScenario(() => sqliteSessions(state), checks, ['site-a', 'site-b']);
      // The agents stop cleanly (SIGTERM: runs under way finish or go back), then the service.
      expect(await Promise.all(agents.map((x) => x.stop()))).toEqual([0, 0, 0]);
      const ofA = await agentIds(s, a.id);
      const ofB = await agentIds(s, b.id);
      expect(ofA.size).toBe(2);
      expect(ofB.size).toBe(1);
      const view = await apiOk(s, 'GET', `/v1/private-locations/${a.id}`);
      expect(view.keys[0]).not.toHaveProperty('keyHash');
      expect(view.keys[0]).not.toHaveProperty('rawKey');
      expect(view.agents[0]).toMatchObject({ version: expect.any(String), hostName: expect.any(String), lastContact: expect.any(String) });
      await s.stop();
      expectExactlyOnce(sqliteSessions(state), sqliteRows<QueuedRow>(state, 'privateLocationRuns'), checks, { 'site-a': ofA, 'site-b': ofB }, FREQUENCY * 1000, 1);
      for (const x of agents) expect(x.log()).toContain('stopped after');
    } finally {
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await s.stop('SIGKILL');
    }
  });
});
