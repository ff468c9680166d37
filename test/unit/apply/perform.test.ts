import { describe, expect, it } from 'vitest';
import { apiErrorFromResponse, NetworkError, outcomeUnknown } from '../../../src/api/index.js';
import { createOnce, createPerform, type ResourceOps } from '../../../src/apply/perform.js';
import type { PlannedChange } from '../../../src/plan/types.js';
import { change } from './fixtures.js';

const reset = () => new NetworkError('POST /v1/checks/tcp: ECONNRESET socket hang up', 'ECONNRESET', 'POST', '/v1/checks/tcp');
const refused = () => new NetworkError('connect ECONNREFUSED', 'ECONNREFUSED', 'POST', '/v1/checks/tcp');
const status = (s: number) => apiErrorFromResponse({ status: s, method: 'POST', path: '/v1/checks/tcp', body: { message: 'x' } });

/** An in-memory account whose POST answers can be scripted to fail before or after writing. */
function fakeAccount(script: Array<'ok' | 'lost-after-write' | '503-before-write' | '400'>) {
  const objects: Array<{ id: string; name: unknown }> = [];
  let n = 0;
  const ops: ResourceOps = {
    async create(_c, body) {
      const step = script.shift() ?? 'ok';
      if (step === '503-before-write') throw status(503);
      if (step === '400') throw status(400);
      const id = `id-${++n}`;
      objects.push({ id, name: body.name });
      if (step === 'lost-after-write') throw reset();
      return id;
    },
    async update() {},
    async remove() {},
    async find(_c, body) {
      return objects.find((o) => o.name === body.name)?.id;
    },
  };
  return { ops, objects };
}

const c = change({ kind: 'TcpCheck', id: 'db' });

describe('createOnce', () => {
  it('adopts the object a lost create made instead of posting again', async () => {
    const { ops, objects } = fakeAccount(['lost-after-write']);
    const out = await createOnce(ops, c, { name: 'db' });
    expect(objects).toHaveLength(1);
    expect(out).toEqual({ remoteId: 'id-1', notes: ['the create answer was lost; adopted the object it made'] });
  });

  it('posts again when the lookup shows the failed create wrote nothing', async () => {
    const { ops, objects } = fakeAccount(['503-before-write', '503-before-write', 'ok']);
    const out = await createOnce(ops, c, { name: 'db' });
    expect(objects).toHaveLength(1);
    expect(out).toEqual({ remoteId: 'id-1', notes: ['created after 2 lost answers'] });
  });

  it('gives up after the attempts and rethrows the last error', async () => {
    const { ops, objects } = fakeAccount(['503-before-write', '503-before-write']);
    await expect(createOnce(ops, c, { name: 'db' }, { attempts: 2 })).rejects.toThrow(/503/);
    expect(objects).toHaveLength(0);
  });

  it('does not look up or retry after a 4xx', async () => {
    const { ops } = fakeAccount(['400', 'ok']);
    let lookups = 0;
    const counted = { ...ops, find: async (ch: PlannedChange, b: Record<string, unknown>) => (lookups++, ops.find(ch, b)) };
    await expect(createOnce(counted, c, { name: 'db' })).rejects.toThrow(/400/);
    expect(lookups).toBe(0);
  });

  it('knows which failures may have written', () => {
    expect(outcomeUnknown(reset())).toBe(true);
    expect(outcomeUnknown(status(500))).toBe(true);
    expect(outcomeUnknown(refused())).toBe(false);
    expect(outcomeUnknown(status(409))).toBe(false);
  });
});

describe('createPerform', () => {
  it('treats a delete that finds nothing as done', async () => {
    const ops: ResourceOps = {
      ...fakeAccount([]).ops,
      async remove() {
        throw apiErrorFromResponse({ status: 404, method: 'DELETE', path: '/v1/snippets/3', body: undefined });
      },
    };
    const perform = createPerform(() => ops);
    const out = await perform(change({ kind: 'Snippet', id: 's', action: 'delete', remoteId: 3 }), { ids: new Map() });
    expect(out).toEqual({ notes: ['already gone'] });
  });

  it('sends updates to the planned id with the resolved body', async () => {
    const calls: unknown[] = [];
    const ops: ResourceOps = { ...fakeAccount([]).ops, update: async (_c, id, body) => void calls.push([id, body]) };
    await createPerform(() => ops)(change({ kind: 'Snippet', id: 's', action: 'update', remoteId: 3 }), { body: { name: 'n' }, ids: new Map() });
    expect(calls).toEqual([[3, { name: 'n' }]]);
  });
});
