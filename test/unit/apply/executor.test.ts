import { describe, expect, it } from 'vitest';
import { execute, type PerformInput } from '../../../src/apply/executor.js';
import type { PlannedChange } from '../../../src/plan/types.js';
import { MacError } from '../../../src/errors.js';
import { ForbiddenError } from '../../../src/api/errors.js';
import { change } from './fixtures.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('execute', () => {
  it('passes ids created in one wave to the references of the next', async () => {
    const seen: Array<{ key: string; body?: Record<string, unknown> }> = [];
    let next = 100;
    const outcomes = await execute(
      [
        change({ kind: 'DnsCheck', id: 'dns', desired: { name: 'd', setupSnippetId: { $ref: 'Snippet/s' } }, dependsOn: ['Snippet/s'] }),
        change({ kind: 'Snippet', id: 's', desired: { name: 's', script: 'x' } }),
      ],
      {
        perform: async (c, input: PerformInput) => {
          seen.push({ key: `${c.kind}/${c.id}`, body: input.body });
          return { remoteId: next++ };
        },
      },
    );
    expect(seen).toEqual([
      { key: 'Snippet/s', body: { name: 's', script: 'x' } },
      { key: 'DnsCheck/dns', body: { name: 'd', setupSnippetId: 100 } },
    ]);
    expect(outcomes.map((o) => [o.key, o.status, o.remoteId])).toEqual([
      ['DnsCheck/dns', 'applied', 101],
      ['Snippet/s', 'applied', 100],
    ]);
  });

  it('masks secret values an API error quotes back, raw or JSON-escaped', async () => {
    const secret = 'sk_live_"4242"';
    const [outcome] = await execute([change({ kind: 'EnvironmentVariable', id: 'K', desired: { key: 'K', value: '(sensitive)' }, secrets: [{ path: '/value' }] })], {
      secrets: new Map([['EnvironmentVariable/K', new Map([['/value', secret]])]]),
      perform: async (_c, input) => {
        const sent = JSON.stringify(input.body);
        throw new MacError(`POST /v1/variables failed: 400 bad body ${sent}`, { hint: `value ${secret} is too long` });
      },
    });
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toBe('POST /v1/variables failed: 400 bad body {"key":"K","value":"(sensitive)"}');
    expect(outcome.hint).toBe('value (sensitive) is too long');
  });

  it('goes on with independent changes and skips the dependents of a failure, transitively', async () => {
    const performed: string[] = [];
    const outcomes = await execute(
      [
        change({ kind: 'Snippet', id: 'bad' }),
        change({ kind: 'Snippet', id: 'good' }),
        change({ kind: 'DnsCheck', id: 'needs-bad', dependsOn: ['Snippet/bad'] }),
        change({ kind: 'DnsCheck', id: 'needs-good', dependsOn: ['Snippet/good'] }),
        change({ kind: 'Dashboard', id: 'needs-check', dependsOn: ['DnsCheck/needs-bad'] }),
      ],
      {
        perform: async (c) => {
          performed.push(c.id);
          if (c.id === 'bad') throw new MacError('400 "script" is required', { hint: 'fix the snippet' });
          return { remoteId: c.id };
        },
      },
    );
    expect(performed.sort()).toEqual(['bad', 'good', 'needs-good']);
    const byId = Object.fromEntries(outcomes.map((o) => [o.id, o]));
    expect(byId.bad).toMatchObject({ status: 'failed', error: '400 "script" is required', hint: 'fix the snippet' });
    expect(byId['needs-good'].status).toBe('applied');
    expect(byId['needs-bad']).toMatchObject({ status: 'skipped', skippedBecause: ['Snippet/bad'] });
    expect(byId['needs-check']).toMatchObject({ status: 'skipped', skippedBecause: ['DnsCheck/needs-bad'] });
  });

  it('never has more than `concurrency` changes in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const changes: PlannedChange[] = Array.from({ length: 40 }, (_, i) => change({ kind: 'TcpCheck', id: `c${i}` }));
    await execute(changes, {
      concurrency: 3,
      perform: async (c) => {
        peak = Math.max(peak, ++inFlight);
        await tick();
        inFlight--;
        return { remoteId: c.id };
      },
    });
    expect(peak).toBe(3);
  });

  it('does not start a wave before the previous one has ended', async () => {
    const log: string[] = [];
    await execute(
      [change({ kind: 'TcpCheck', id: 'c' }), change({ kind: 'Snippet', id: 's1' }), change({ kind: 'Snippet', id: 's2' })],
      {
        perform: async (c) => {
          log.push(`start ${c.id}`);
          await tick();
          log.push(`end ${c.id}`);
          return { remoteId: c.id };
        },
      },
    );
    expect(log.indexOf('start c')).toBeGreaterThan(Math.max(log.indexOf('end s1'), log.indexOf('end s2')));
  });

  it('fails a create that came back without an id and a body whose reference cannot resolve', async () => {
    const outcomes = await execute(
      [
        change({ kind: 'Snippet', id: 'noid' }),
        change({ kind: 'DnsCheck', id: 'dangling', desired: { setupSnippetId: { $ref: 'Snippet/elsewhere' } } }),
      ],
      { perform: async () => ({}) },
    );
    expect(outcomes.map((o) => [o.id, o.status, o.error])).toEqual([
      ['noid', 'failed', 'the API answered the create without an id'],
      ['dangling', 'failed', 'DnsCheck/dangling: Snippet/elsewhere has no API id yet'],
    ]);
  });

  it('fills secret values into the body it sends', async () => {
    const bodies: unknown[] = [];
    await execute([change({ kind: 'EnvironmentVariable', id: 'K', desired: { key: 'K', value: '(sensitive)' }, secrets: [{ path: '/value' }] })], {
      secrets: new Map([['EnvironmentVariable/K', new Map([['/value', 's3cret']])]]),
      perform: async (_c, input) => (bodies.push(input.body), { remoteId: 'K' }),
    });
    expect(bodies).toEqual([{ key: 'K', value: 's3cret' }]);
  });

  it('reports progress after every change', async () => {
    const seen: string[] = [];
    await execute([change({ kind: 'Snippet', id: 'a' }), change({ kind: 'Snippet', id: 'b' })], {
      perform: async (c) => {
        if (c.id === 'b') throw new Error('boom');
        return { remoteId: 1 };
      },
      onProgress: (p) => seen.push(`${p.done}/${p.total} failed ${p.failed}`),
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/^1\/2 failed [01]$/);
    expect(seen[1]).toBe('2/2 failed 1');
  });

  it('rejects a concurrency below 1', async () => {
    await expect(execute([], { concurrency: 0, perform: async () => ({}) })).rejects.toThrow(/positive integer/);
  });
  it('stops writing once the API refuses the key itself (403): the rest is skipped with that reason', async () => {
    const tried: string[] = [];
    const refused = new ForbiddenError('PUT /v1/snippets/1: This API key may only read', { status: 403, method: 'POST', path: '/v1/snippets', body: {} });
    const outcomes = await execute(
      [change({ kind: 'Snippet', id: 'a' }), change({ kind: 'Snippet', id: 'b' }), change({ kind: 'TcpCheck', id: 'c' })],
      {
        concurrency: 1,
        perform: async (c) => {
          tried.push(c.id);
          throw refused;
        },
      },
    );
    expect(tried).toEqual(['a']);
    expect(outcomes.map((o) => [o.key, o.status])).toEqual([
      ['Snippet/a', 'failed'],
      ['Snippet/b', 'skipped'],
      ['TcpCheck/c', 'skipped'],
    ]);
    expect(outcomes[1].skipReason).toBe('not attempted: the API refused Snippet/a (403), so it would refuse this too');
  });

  it('goes on after a failure that is not about the key', async () => {
    const tried: string[] = [];
    await execute([change({ kind: 'Snippet', id: 'a' }), change({ kind: 'Snippet', id: 'b' })], {
      concurrency: 1,
      perform: async (c) => {
        tried.push(c.id);
        throw new MacError('rejected');
      },
    });
    expect(tried).toEqual(['a', 'b']);
  });
});
