import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Alerter, ALERT_STATE_COLL, type AlertContext, type CheckRecord } from '../../../src/server/runs/alerts.js';
import type { SessionVerdict } from '../../../src/server/runs/alert-state.js';
import { COLL } from '../../../src/server/kinds.js';
import { RUN_COLL } from '../../../src/server/rundata/collections.js';
import type { Store } from '../../../src/server/store/store.js';
import { pgDatabase } from '../../helpers/pg-url.js';
import { tcpBody, testServer, type TestClient } from './client.js';

// Two writers of one check's alert state at once: two service instances on one database (each
// receiving results of the same check: agents pointed at different instances, or a public and a
// private location), or two sessions of one instance. The race is made deterministic: the second
// writer's whole verdict runs in the moment between the first writer's read of the state and its
// write (the first call of `begin` on its store after the read), which is where two instances
// interleave. Every store is real; on PostgreSQL the two instances are two services on one database.

const about: AlertContext = { runLocation: 'eu-west-1', responseTime: 12, startedAt: '2026-03-01T00:00:00.000Z', errorMessage: 'connect ECONNREFUSED', checkResultId: null };

interface Pair {
  a: TestClient;
  b: TestClient;
}

const STORES: Array<[string, () => Pair]> = [
  [
    'memory (two writers in one instance)',
    () => {
      const a = testServer({ stateFile: undefined });
      return { a, b: a };
    },
  ],
  [
    'SQLite (two writers in one instance)',
    () => {
      const a = testServer({ stateFile: join(mkdtempSync(join(tmpdir(), 'mac-alert-race-')), 'state.db') });
      return { a, b: a };
    },
  ],
  [
    'PostgreSQL (two instances on one database)',
    () => {
      const url = pgDatabase();
      return { a: testServer({ stateFile: url }), b: testServer({ stateFile: url }) };
    },
  ],
];

let open: Pair | undefined;
afterEach(async () => {
  if (!open) return;
  await open.a.server.close();
  if (open.b !== open.a) await open.b.server.close();
  open = undefined;
});

async function ok(t: TestClient, method: string, path: string, body?: unknown): Promise<any> {
  const r = await t.call(method, path, body);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
}

/** A check with an e-mail channel subscribed (failure and recovery alerts), created through instance `a`. */
async function checkWithChannel(t: TestClient): Promise<string> {
  const channel = await ok(t, 'POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' }, sendRecovery: true, sendFailure: true });
  const check = await ok(t, 'POST', '/v1/checks/tcp', tcpBody());
  await ok(t, 'PUT', `/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });
  return check.id as string;
}

function checkOf(store: Store, id: string): CheckRecord {
  return store.getLatest('dev', COLL.checks, id) as unknown as CheckRecord;
}

/** Applies `first` on instance a, with `second` applied on instance b between a's read and its write. */
async function race(pair: Pair, checkId: string, first: SessionVerdict, second: SessionVerdict): Promise<void> {
  const storeA = pair.a.server.ctx.store;
  const storeB = pair.b.server.ctx.store;
  const alerterA = new Alerter(pair.a.server.ctx);
  const alerterB = new Alerter(pair.b.server.ctx);
  const begin = storeA.begin.bind(storeA);
  let fired = false;
  storeA.begin = (account: string) => {
    if (!fired) {
      fired = true;
      // The other writer reads, decides and commits completely now (its store calls are synchronous).
      void alerterB.onVerdict('dev', checkOf(storeB, checkId), second, { ...about, runLocation: 'us-east-1' });
    }
    return begin(account);
  };
  try {
    await alerterA.onVerdict('dev', checkOf(storeA, checkId), first, about);
  } finally {
    storeA.begin = begin;
  }
  expect(fired).toBe(true);
}

function notifications(store: Store, checkId: string): string[] {
  store.flush();
  return store
    .query<{ alertType: string; created_at: string }>('dev', RUN_COLL.alertNotifications, { checkId, limit: 100 })
    .map((n) => n.alertType)
    .sort();
}

describe.each(STORES)('alert state under concurrent verdicts of one check, %s', (_name, make) => {
  it('two failures at once from PASSING send one failure alert, and both count', async () => {
    open = make();
    const checkId = await checkWithChannel(open.a);
    await race(open, checkId, 'failed', 'failed');
    expect(notifications(open.a.server.ctx.store, checkId)).toEqual(['ALERT_FAILURE']);
    expect(notifications(open.b.server.ctx.store, checkId)).toEqual(['ALERT_FAILURE']);
    const state = open.b.server.ctx.store.getLatest<Record<string, unknown>>('dev', ALERT_STATE_COLL, checkId);
    expect(state).toMatchObject({ state: 'FAILING', consecutiveFailures: 2, rev: 2 });
  });

  it('a recovery committed between the read and the write of a failure is not lost: recovery, then a new failure alert', async () => {
    open = make();
    const checkId = await checkWithChannel(open.a);
    await new Alerter(open.a.server.ctx).onVerdict('dev', checkOf(open.a.server.ctx.store, checkId), 'failed', about);
    // Instance a reads FAILING and decides "still failing, no alert"; meanwhile b records the recovery.
    await race(open, checkId, 'failed', 'passed');
    expect(notifications(open.a.server.ctx.store, checkId)).toEqual(['ALERT_FAILURE', 'ALERT_FAILURE', 'ALERT_RECOVERY']);
    const state = open.a.server.ctx.store.getLatest<Record<string, unknown>>('dev', ALERT_STATE_COLL, checkId);
    expect(state).toMatchObject({ state: 'FAILING', consecutiveFailures: 1, rev: 3 });
  });

  it('a burst of alternating verdicts from both writers: every transition announced exactly once, in the order the state took', async () => {
    open = make();
    const checkId = await checkWithChannel(open.a);
    const verdicts: Array<[SessionVerdict, SessionVerdict]> = [
      ['failed', 'failed'],
      ['passed', 'passed'],
      ['failed', 'passed'],
      ['passed', 'failed'],
      ['failed', 'failed'],
    ];
    for (const [first, second] of verdicts) await race(open, checkId, first, second);
    // Serialised, b's verdict lands first each time (b, a): F F | P P | P F | F P | F F. From
    // PASSING: failure alert, -, recovery, -, -, failure alert, -, recovery, failure alert, -.
    const all = notifications(open.a.server.ctx.store, checkId);
    expect(all.filter((t) => t === 'ALERT_FAILURE')).toHaveLength(3);
    expect(all.filter((t) => t === 'ALERT_RECOVERY')).toHaveLength(2);
    expect(open.a.server.ctx.store.getLatest<Record<string, unknown>>('dev', ALERT_STATE_COLL, checkId)).toMatchObject({ state: 'FAILING', consecutiveFailures: 2 });
  });
});
