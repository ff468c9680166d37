import { afterEach, describe, expect, it } from 'vitest';
import { RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { RunRecorder, type AttemptInput, type FinishOutcome } from '../../../src/server/rundata/recorder.js';
import type { StoredSession } from '../../../src/server/rundata/types.js';
import { Store } from '../../../src/server/store/store.js';
import { TEST_STORE, testStateFile } from '../../helpers/store-mode.js';

// A joined session (one due time of a check in public and private locations): its parts finish on
// whichever instance ran them or received the agent's result, and the part that finishes the last
// slot takes the verdict. That decision is the store's (a compare-and-set of the session), so it
// is made once even when two writers finish the last two slots at the same moment. The race is
// made deterministic as in alert-race.test.ts: writer b's whole write runs between writer a's read
// of the session and its write. On PostgreSQL (MAC_TEST_STORE=postgres) a and b are two Store
// instances on one database, as two service instances are; on SQLite and in memory, one store.

interface Pair {
  a: Store;
  b: Store;
}

let open: Pair | undefined;
afterEach(() => {
  if (!open) return;
  open.a.close();
  if (open.b !== open.a) open.b.close();
  open = undefined;
});

function stores(): Pair {
  const file = testStateFile();
  if (TEST_STORE === 'postgres') return (open = { a: Store.open(file!, RUN_INDEX), b: Store.open(file!, RUN_INDEX) });
  const a = file ? Store.open(file, RUN_INDEX) : Store.memory(RUN_INDEX);
  return (open = { a, b: a });
}

const check = { id: 'c-joined', name: 'joined', checkType: 'URL', shouldFail: false, maxResponseTime: null };

function attempt(location: string, fields: Partial<AttemptInput> = {}): AttemptInput {
  const at = new Date().toISOString();
  return {
    location,
    startedAt: at,
    stoppedAt: at,
    responseTime: 12,
    hasFailures: false,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    apiCheckResult: null,
    multiStepCheckResult: null,
    ...fields,
  };
}

/** Opens a joined session on a (landed, as the scheduler's claim lands it) and returns its id. */
function openJoined(pair: Pair, runLocations: string[], privateSlots: string[]): string {
  const session = new RunRecorder(pair.a, Date.now).openSession('dev', { check, runLocations, privateSlots });
  pair.a.flush();
  return session.checkSessionId;
}

/** Runs `second` (on b) between a's read of the session and its write, then `first` (on a) completes. */
function race<T>(pair: Pair, first: () => T, second: () => unknown): T {
  const begin = pair.a.begin.bind(pair.a);
  let fired = false;
  pair.a.begin = (account: string) => {
    if (!fired) {
      fired = true;
      second();
    }
    return begin(account);
  };
  try {
    return first();
  } finally {
    pair.a.begin = begin;
  }
}

function latest(store: Store, id: string): StoredSession {
  return store.getLatest('dev', RUN_COLL.checkSessions, id) as unknown as StoredSession;
}

describe(`joined sessions: completion decided once by the store (${TEST_STORE})`, () => {
  it('the public part and an agent result finishing the last two slots at once: one writer completes, both parts are kept', () => {
    const pair = stores();
    const id = openJoined(pair, ['eu-west-1', 'site-a'], ['site-a']);
    const a = new RunRecorder(pair.a, Date.now);
    const b = new RunRecorder(pair.b, Date.now);
    let fromB: FinishOutcome | undefined;
    const fromA = race(
      pair,
      () => a.finishLocation('dev', id, attempt('eu-west-1')),
      () => (fromB = b.finishSlot('dev', id, [attempt('site-a')], { agentRun: { dueAt: new Date().toISOString(), agentId: 'agent-1' } })),
    );
    // b wrote first; a's compare-and-set failed, it read again and finished the last slot.
    expect(fromB?.completes).toBe(false);
    expect(fromA.completes).toBe(true);
    for (const store of [pair.a, pair.b]) {
      const s = latest(store, id);
      expect(s.finishedLocations.sort()).toEqual(['eu-west-1', 'site-a']);
      expect(s.resultIds).toHaveLength(2);
      expect(s.status).toBe('PASSED');
      expect(s.completedAt).toEqual(expect.any(String));
      expect(s.agentRuns).toEqual({ 'site-a': expect.objectContaining({ agentId: 'agent-1' }) });
      expect(s.rev).toBe(2);
    }
    // Both results carry the session's run id.
    const results = latest(pair.b, id).resultIds.map((r) => pair.b.get<{ checkRunId: number }>('dev', RUN_COLL.checkResults, r)!);
    expect(new Set(results.map((r) => r.checkRunId)).size).toBe(1);
  });

  it('two agent results racing over the last slots of three: exactly one completes, over many sessions', () => {
    const pair = stores();
    const a = new RunRecorder(pair.a, Date.now);
    const b = new RunRecorder(pair.b, Date.now);
    let completions = 0;
    const rounds = 12;
    for (let i = 0; i < rounds; i++) {
      const id = openJoined(pair, ['eu-west-1', 'site-a', 'site-b'], ['site-a', 'site-b']);
      // The public part first (on a), then the two agents' results, each writer in turn first.
      if (a.finishLocation('dev', id, attempt('eu-west-1')).completes) completions++;
      const [mine, theirs] = i % 2 === 0 ? ['site-a', 'site-b'] : ['site-b', 'site-a'];
      let other: FinishOutcome | undefined;
      const own = race(
        pair,
        () => a.finishSlot('dev', id, [attempt(mine, { hasFailures: true })]),
        () => (other = b.finishSlot('dev', id, [attempt(theirs)])),
      );
      completions += [own, other].filter((o) => o?.completes).length;
      const s = latest(pair.b, id);
      expect(s.finishedLocations).toHaveLength(3);
      expect(s.status).toBe('FAILED');
    }
    expect(completions).toBe(rounds);
  });

  it('a slot finished twice records nothing the second time, and the queued run still leaves with it', () => {
    const pair = stores();
    const id = openJoined(pair, ['eu-west-1', 'site-a'], ['site-a']);
    const b = new RunRecorder(pair.b, Date.now);
    expect(b.finishSlot('dev', id, [attempt('site-a')])?.completes).toBe(false);
    const queued = pair.b.begin('dev');
    queued.put('privateLocationRuns', 'run-1', { id: 'run-1', locationId: 'l', availableAt: new Date().toISOString() });
    queued.commit();
    const again = b.finishSlot('dev', id, [attempt('site-a', { hasErrors: true })], { with: (tx) => tx.delete('privateLocationRuns', 'run-1') });
    expect(again).toBeUndefined();
    expect(pair.b.getLatest('dev', 'privateLocationRuns', 'run-1')).toBeUndefined();
    expect(latest(pair.a, id).resultIds).toHaveLength(1);
  });

  it('a private slot not run: the session completes, the slot is kept as not run, and the status is taken over what ran', () => {
    const pair = stores();
    const id = openJoined(pair, ['eu-west-1', 'site-a'], ['site-a']);
    const a = new RunRecorder(pair.a, Date.now);
    const b = new RunRecorder(pair.b, Date.now);
    expect(a.finishLocation('dev', id, attempt('eu-west-1')).completes).toBe(false);
    const notRun = b.finishSlot('dev', id, [attempt('site-a', { hasErrors: true, responseTime: 0 })], { notRun: true, agentRun: { dueAt: new Date().toISOString(), agentId: null } });
    expect(notRun?.completes).toBe(true);
    expect(notRun?.result.hasErrors).toBe(true);
    const s = latest(pair.a, id);
    expect(s.notRunLocations).toEqual(['site-a']);
    expect(s.status).toBe('PASSED');
  });

  it('nothing ran: the not-run results judge, never a pass', () => {
    const pair = stores();
    const id = openJoined(pair, ['site-a', 'site-b'], ['site-a', 'site-b']);
    const b = new RunRecorder(pair.b, Date.now);
    b.finishSlot('dev', id, [attempt('site-a', { hasErrors: true })], { notRun: true });
    expect(b.finishSlot('dev', id, [attempt('site-b', { hasErrors: true })], { notRun: true })?.completes).toBe(true);
    expect(latest(pair.a, id).status).toBe('FAILED');
  });
});
