import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/api/index.js';
import { apiAccount, sameJson } from '../../../src/apply/account.js';
import { fakeApi, json } from '../../helpers/fake-api.js';
import { change } from './fixtures.js';

// The convergence check compares each applied object as re-read after the run. The comparison of
// a write's answer is computed while the run waits on the API; it stands for the re-read only
// when the re-read object is exactly the answer.

let client: ApiClient | undefined;

const { serve, close } = fakeApi();

afterEach(async () => {
  await client?.close();
  client = undefined;
  await close();
});

/** A service that answers the create with `answer` and lists `listed` afterwards. */
async function accountWith(answer: Record<string, unknown>, listed: () => Record<string, unknown>) {
  const url = await serve((req, res) => {
    if (req.method === 'POST') return json(res, 201, answer);
    json(res, 200, [listed()], { 'content-range': '0-0/1' });
  });
  client = new ApiClient({ apiUrl: url, apiKey: 'k', rateLimit: { requests: 0, perSeconds: 1 } });
  return apiAccount({ client, project: 'p' });
}

async function applyAndConverge(answer: Record<string, unknown>, listed: () => Record<string, unknown>) {
  const account = await accountWith(answer, listed);
  const body = { name: 'auth', script: 'x' };
  const c = change({ kind: 'Snippet', id: 'auth', desired: body });
  const out = await account.perform(c, { body, ids: new Map() });
  // Let the comparison of the answer run, as it does while other writes are in flight.
  await new Promise((r) => setImmediate(r));
  const outcome = { key: 'Snippet/auth', action: 'create' as const, kind: 'Snippet' as const, id: 'auth', status: 'applied' as const, remoteId: out.remoteId };
  return account.converge([{ change: { ...c, remoteId: out.remoteId }, outcome }]);
}

describe('the convergence check after writes', () => {
  it('finds nothing left when the re-read object is the answer and matches the body sent', async () => {
    const obj = { id: 7, name: 'auth', script: 'x' };
    expect(await applyAndConverge(obj, () => ({ ...obj }))).toEqual([]);
  });

  it('judges the re-read object, not the answer, when they differ: a change after the write is reported', async () => {
    const answer = { id: 7, name: 'auth', script: 'x' };
    const issues = await applyAndConverge(answer, () => ({ ...answer, script: 'changed later' }));
    expect(issues).toEqual([{ kind: 'Snippet', id: 'auth', field: '/script', message: 'live "changed later", defined "x"' }]);
  });

  it('reports what the answer already showed when the re-read object is the answer', async () => {
    const answer = { id: 7, name: 'auth', script: 'stored otherwise' };
    const issues = await applyAndConverge(answer, () => ({ ...answer }));
    expect(issues).toEqual([{ kind: 'Snippet', id: 'auth', field: '/script', message: 'live "stored otherwise", defined "x"' }]);
  });
});

describe('sameJson', () => {
  it('compares parsed JSON values deeply, object keys in any order', () => {
    expect(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: {} }, { a: [] })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});
