import { describe, expect, it, vi } from 'vitest';
import { createServer } from '../../../src/server/server.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('retention at start', () => {
  it('takes its first step only after the service listens and has answered, then keeps stepping', async () => {
    const server = createServer({ port: 0, retentionDays: 1, rateLimit: { limit: 0, windowSeconds: 60 }, retention: { batch: 10, idleMs: 60_000, firstMs: 300 } });
    const expire = vi.spyOn(server.ctx.store, 'expire');
    try {
      // A step is a synchronous DELETE: none may run between the start and the first answer.
      for (let i = 0; i < 5; i++) await turn();
      expect(expire).not.toHaveBeenCalled();
      const url = await server.listen();
      const res = await fetch(`${url}/v1/checks`, { headers: { authorization: 'Bearer mac-dev-key' } });
      expect(res.status).toBe(200);
      expect(expire).not.toHaveBeenCalled();
      const deadline = Date.now() + 5_000;
      while (expire.mock.calls.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(expire).toHaveBeenCalled();
    } finally {
      await server.close();
    }
  });
});
