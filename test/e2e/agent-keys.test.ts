import { describe, expect, it } from 'vitest';
import { callApi, startServe, waitFor } from '../helpers/serve.js';
import { TIMEOUT_MS, agentIds, agentFixture, location, startAgent, urlChecks, type Agent } from '../helpers/agent.js';

describe('mac agent: private-location keys', { timeout: TIMEOUT_MS }, () => {
  const fx = agentFixture();

  it("keys: a deleted key stops its agent (exit 1, naming the masked key); a location's key fetches only its work and opens no API route", async () => {
    const s = await startServe(['--time-scale', '60', '--rate-limit', '0/60']);
    const agents: Agent[] = [];
    try {
      const a = await location(s, 'site-a');
      const b = await location(s, 'site-b');
      await urlChecks(s, 2, fx.target.url, ['site-b']);
      await new Promise((r) => setTimeout(r, 1500));
      const claim = (key: string, body: unknown = { agent: { id: 'test-agent-1', version: '0', hostName: 'h' }, max: 10, waitSeconds: 0 }) =>
        fetch(`${s.url}/agent/v1/claims`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      // A's key: none of B's waiting runs. B's key: them.
      const ofA = await claim(a.key);
      expect(ofA.status).toBe(200);
      expect(((await ofA.json()) as any).runs).toEqual([]);
      const ofB = (await (await claim(b.key)).json()) as any;
      expect(ofB.runs.length).toBeGreaterThan(0);
      // A's key cannot post B's result, nor release B's claim.
      const run = ofB.runs[0];
      const attempt = { resultType: 'FINAL', attempts: 0, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false, responseTime: 1, startedAt: new Date().toISOString(), stoppedAt: new Date().toISOString(), apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null, errorMessage: null, networkError: false };
      const post = (key: string, path: string, body: unknown) => fetch(`${s.url}/agent/v1/${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post(a.key, 'results', { runId: run.runId, token: run.token, agentId: 'test-agent-1', attempts: [attempt] })).status).toBe(409);
      expect(await (await post(a.key, 'releases', { runs: [{ runId: run.runId, token: run.token }] })).json()).toEqual({ released: 0 });
      expect((await post(b.key, 'results', { runId: run.runId, token: run.token, agentId: 'test-agent-1', attempts: [attempt] })).status).toBe(200);
      // Recorded once: the same result again is refused.
      expect((await post(b.key, 'results', { runId: run.runId, token: run.token, agentId: 'test-agent-1', attempts: [attempt] })).status).toBe(409);
      // A location's key opens no API route; an API key opens no agent route; a bad body is a 400.
      for (const path of ['/v1/checks', '/v1/private-locations', `/v1/private-locations/${a.id}`, '/v1/accounts/me']) {
        expect((await callApi(s, 'GET', path, undefined, a.key)).status).toBe(401);
      }
      expect((await claim(s.apiKey)).status).toBe(401);
      expect((await claim(b.key, { agent: { id: 'x', version: '0', hostName: 'h' }, max: 1000, waitSeconds: 600 })).status).toBe(400);
      expect((await fetch(`${s.url}/agent/v2/claims`, { method: 'POST', headers: { authorization: `Bearer ${b.key}` } })).status).toBe(404);
      // The key deleted: the agent's next request is refused and it exits 1 naming the masked key.
      const agent = startAgent(s, b.key);
      agents.push(agent);
      await waitFor(async () => ((await agentIds(s, b.id)).size > 1 ? true : undefined));
      expect((await callApi(s, 'DELETE', `/v1/private-locations/${b.id}/keys/${b.keyId}`)).status).toBe(204);
      expect(await agent.exited).toBe(1);
      expect(agent.log()).toContain(`private-location key ...${b.key.slice(-4)}`);
      expect(agent.log()).not.toContain(b.key);
    } finally {
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await s.stop('SIGKILL');
    }
  });
});
