import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, BadResponseError } from '../../../src/api/index.js';
import { apiAccount } from '../../../src/apply/account.js';
import { fakeApi, json } from '../../helpers/fake-api.js';
import { change } from './fixtures.js';

// The apply account over a real local HTTP server whose answers are well-formed HTTP but not
// what the API promises: a create answered with no object, an item re-read that is not one.

let client: ApiClient | undefined;

const { serve, close } = fakeApi();

afterEach(async () => {
  await client?.close();
  client = undefined;
  await close();
});

describe('apiAccount against answers that are not the promised objects', () => {
  it('a create answered 201 without an object is an unknown outcome: the object is looked up and adopted', async () => {
    const stored: Array<Record<string, unknown>> = [];
    let posts = 0;
    const url = await serve((req, res) => {
      if (req.method === 'POST') {
        posts++;
        stored.push({ id: 41, name: 'auth', script: 'x' });
        return json(res, 201, ['not', 'an', 'object']);
      }
      json(res, 200, stored, { 'content-range': stored.length ? `0-${stored.length - 1}/${stored.length}` : '*/0' });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const account = apiAccount({ client, project: 'p', createPolicy: { settleMs: 0 } });
    const c = change({ kind: 'Snippet', id: 'auth', desired: { name: 'auth', script: 'x' } });
    const out = await account.perform(c, { body: { name: 'auth', script: 'x' }, ids: new Map() });
    expect(out).toEqual({ remoteId: 41, notes: ['the create answer was lost; adopted the object it made'] });
    expect(posts).toBe(1);
  });

  it('a create answered 201 with an object without an id fails naming the URL instead of recording no id', async () => {
    const url = await serve((req, res) => (req.method === 'POST' ? json(res, 201, { name: 'auth' }) : json(res, 200, [], { 'content-range': '*/0' })));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const account = apiAccount({ client, project: 'p', createPolicy: { settleMs: 0, attempts: 2 } });
    const c = change({ kind: 'Snippet', id: 'auth', desired: { name: 'auth', script: 'x' } });
    const err: any = await account.perform(c, { body: { name: 'auth', script: 'x' }, ids: new Map() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(`POST ${url}/v1/snippets: the answer to the create holds no id of the new object`);
  });

  it('an item re-read answered with a non-object fails naming the URL', async () => {
    const url = await serve((req, res) => {
      if (req.url!.startsWith('/v1/snippets/7')) return json(res, 200, [1, 2, 3]);
      json(res, 200, [], { 'content-range': '*/0' });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const account = apiAccount({ client, project: 'p' });
    const c = change({ kind: 'Snippet', id: 'auth', action: 'update', remoteId: 7, desired: { name: 'auth', script: 'x' } });
    const err: any = await account.readLive([c]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(`GET ${url}/v1/snippets/7: expected a JSON object, got an array`);
  });
});
