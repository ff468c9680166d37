import { describe, expect, it } from 'vitest';
import { runsHarness } from './harness.js';
import { COLL } from '../../../src/server/kinds.js';

describe("a scheduled run's variables (RunEngine.runnable)", () => {
  it('are read only for checks that run a script, and followed by the version of the variables kind', async () => {
    const h = runsHarness();
    try {
      const store = h.server.ctx.store;
      const lists: string[] = [];
      const list = store.list.bind(store);
      store.list = ((account: string, kind: string) => {
        lists.push(kind);
        return list(account, kind);
      }) as typeof store.list;
      expect((await h.call('POST', '/v1/variables', { key: 'TOKEN', value: 'one', secret: true })).status).toBe(201);
      const engine = h.runs.engine;
      const tcp = h.seedCheck({ checkType: 'TCP', environmentVariables: [{ key: 'OWN', value: 'x' }] });
      const plainApi = h.seedCheck({ checkType: 'API', request: { method: 'GET', url: 'http://127.0.0.1:9/' } });
      const scripted = h.seedCheck({ checkType: 'API', request: { method: 'GET', url: 'http://127.0.0.1:9/' }, localSetupScript: 'request.url = request.url;' });
      const browser = h.seedCheck({ checkType: 'BROWSER', script: 'await page.goto("about:blank")', environmentVariables: [{ key: 'OWN', value: 'x' }] });
      lists.length = 0;
      // No script: no variables, nothing read.
      for (let i = 0; i < 3; i++) {
        expect(engine.runnable('dev', tcp as never).environmentVariables).toEqual([]);
        expect(engine.runnable('dev', plainApi as never).environmentVariables).toEqual([]);
      }
      expect(lists.filter((k) => k === COLL.variables)).toEqual([]);
      // Scripts: the account's variables (the check's own after them), read once while unchanged.
      expect(engine.runnable('dev', scripted as never).environmentVariables).toEqual([{ key: 'TOKEN', value: 'one', secret: true, locked: false }]);
      expect(engine.runnable('dev', browser as never).environmentVariables).toEqual([
        { key: 'TOKEN', value: 'one', secret: true, locked: false },
        { key: 'OWN', value: 'x', secret: false, locked: false },
      ]);
      expect(engine.runnable('dev', scripted as never).environmentVariables).toHaveLength(1);
      expect(lists.filter((k) => k === COLL.variables)).toHaveLength(1);
      // A changed variable is seen by the next run.
      expect((await h.call('PUT', '/v1/variables/TOKEN', { key: 'TOKEN', value: 'two', secret: true })).status).toBe(200);
      expect(engine.runnable('dev', scripted as never).environmentVariables).toEqual([{ key: 'TOKEN', value: 'two', secret: true, locked: false }]);
      expect(lists.filter((k) => k === COLL.variables)).toHaveLength(2);
    } finally {
      await h.close();
    }
  });
});
