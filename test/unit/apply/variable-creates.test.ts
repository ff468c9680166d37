import { describe, expect, it } from 'vitest';
import { apiErrorFromResponse, NetworkError, type ApiClient } from '../../../src/api/index.js';
import { acquireLock, lockVariableKey, parseLockRecord } from '../../../src/apply/lock.js';
import { ownedVariableKey } from '../../../src/schema/lock-key.js';
import { writeOwnership } from '../../../src/plan/record.js';

// The lock and the project's record are variables created by POST, which the client never retries:
// a create answered by a 5xx or a reset may or may not have landed. One such answer must not fail
// an apply (a resource's create is looked up and sent again; these are read back or sent again).

/** What the next POST meets: `fail` answers 503 without writing, `lost` writes and then answers 503, `reset` writes and drops the answer. */
type Fault = 'fail' | 'lost' | 'reset';

/** The variables of one account, behind a client whose POSTs meet `faults` in order. */
function variables(faults: Fault[]) {
  const vars = new Map<string, { key: string; value: string }>();
  const calls: string[] = [];
  const keyOf = (path: string) => decodeURIComponent(path.slice('/v1/variables/'.length));
  const error = (status: number, method: string, path: string) => apiErrorFromResponse({ status, method, path, body: { message: `answered ${status}` } });
  const client = {
    async get(path: string) {
      calls.push(`GET ${keyOf(path)}`);
      const v = vars.get(keyOf(path));
      if (!v) throw error(404, 'GET', path);
      return { ...v };
    },
    async post(path: string, body: { key: string; value: string }) {
      calls.push(`POST ${body.key}`);
      const fault = faults.shift();
      if (fault === 'fail') throw error(503, 'POST', path);
      if (vars.has(body.key)) throw error(409, 'POST', path);
      vars.set(body.key, { key: body.key, value: body.value });
      if (fault === 'lost') throw error(503, 'POST', path);
      if (fault === 'reset') throw new NetworkError('POST: socket hang up', 'ECONNRESET', 'POST', path);
      return { ...body };
    },
    async put(path: string, body: { value: string }) {
      calls.push(`PUT ${keyOf(path)}`);
      const v = vars.get(keyOf(path));
      if (!v) throw error(404, 'PUT', path);
      v.value = body.value;
      return { ...v };
    },
    async delete(path: string) {
      calls.push(`DELETE ${keyOf(path)}`);
      if (!vars.delete(keyOf(path))) throw error(404, 'DELETE', path);
    },
  };
  return { client: client as unknown as ApiClient, vars, calls };
}

const holder = { user: 'ci', host: 'runner-1', pid: 4242, command: 'mac apply' };
const noWait = async () => undefined;
const LOCK = lockVariableKey('shop');

describe('the apply lock through a flaky service', () => {
  it('a create answered 503 without writing is sent again, and the lock is taken', async () => {
    const { client, vars, calls } = variables(['fail', 'fail']);
    const held = await acquireLock(client, 'shop', { holder, timeoutMs: 0, sleep: noWait });
    expect(parseLockRecord(vars.get(LOCK)?.value)?.token).toBe(held.record.token);
    expect(calls.filter((c) => c === `POST ${LOCK}`)).toHaveLength(3);
    await held.release();
    expect(vars.has(LOCK)).toBe(false);
  });

  it('a create that landed but whose answer was a 503 or a reset is read back as ours, not sent twice', async () => {
    for (const fault of ['lost', 'reset'] as const) {
      const { client, vars, calls } = variables([fault]);
      const held = await acquireLock(client, 'shop', { holder, timeoutMs: 0, sleep: noWait });
      expect(parseLockRecord(vars.get(LOCK)?.value)?.token, fault).toBe(held.record.token);
      expect(calls, fault).toEqual([`POST ${LOCK}`, `GET ${LOCK}`]);
      await held.release();
    }
  });

  it('gives up after four creates of unknown outcome, with the service\'s answer', async () => {
    const { client, vars, calls } = variables(['fail', 'fail', 'fail', 'fail', 'fail']);
    await expect(acquireLock(client, 'shop', { holder, timeoutMs: 0, sleep: noWait })).rejects.toThrow(/answered 503/);
    expect(calls.filter((c) => c === `POST ${LOCK}`)).toHaveLength(4);
    expect(vars.size).toBe(0);
  });

  it('a 4xx is not retried', async () => {
    const { client } = variables([]);
    const refusing = { ...client, post: async () => Promise.reject(apiErrorFromResponse({ status: 403, method: 'POST', path: '/v1/variables', body: {} })) } as unknown as ApiClient;
    await expect(acquireLock(refusing, 'shop', { holder, timeoutMs: 0, sleep: noWait })).rejects.toMatchObject({ status: 403 });
  });
});

describe("the project's record through a flaky service", () => {
  const outcomes = [{ kind: 'Snippet' as const, id: 'helper', action: 'create' as const, remoteId: 7, applied: true }];
  const RECORD = ownedVariableKey('shop');

  it('a create answered 503 without writing is sent again', async () => {
    const { client, vars, calls } = variables(['fail']);
    await writeOwnership(client, 'shop', outcomes);
    expect(JSON.parse(vars.get(RECORD)!.value)).toMatchObject({ project: 'shop', objects: { Snippet: { helper: '7' } } });
    expect(calls).toEqual([`GET ${RECORD}`, `POST ${RECORD}`, `POST ${RECORD}`]);
  });

  it('a create that landed but whose answer was lost meets its own variable (409) and writes it again by PUT', async () => {
    const { client, vars, calls } = variables(['lost']);
    await writeOwnership(client, 'shop', outcomes);
    expect(JSON.parse(vars.get(RECORD)!.value)).toMatchObject({ objects: { Snippet: { helper: '7' } } });
    expect(calls).toEqual([`GET ${RECORD}`, `POST ${RECORD}`, `POST ${RECORD}`, `PUT ${RECORD}`]);
  });

  it('gives up after four creates of unknown outcome', async () => {
    const { client, vars } = variables(['fail', 'fail', 'fail', 'fail']);
    await expect(writeOwnership(client, 'shop', outcomes)).rejects.toThrow(/answered 503/);
    expect(vars.size).toBe(0);
  });
});
