import { afterEach, describe, expect, it, vi } from 'vitest';
import { runsHarness, type RunsHarness } from './harness.js';
import { COLL } from '../../../src/server/kinds.js';

let h: RunsHarness;
afterEach(() => h?.close());

const START = 1_700_000_000_000;
let clock = START;
// Every property read of a stored check through a probe: what a scan of the checks costs.
let reads = 0;

/** Stores `record` behind a proxy that counts its property reads. */
function storeProbe(record: Record<string, unknown>): void {
  const tx = h.server.ctx.store.begin('dev');
  tx.put(COLL.checks, record.id as string, new Proxy(record, { get: (t, k) => (reads++, Reflect.get(t, k)) }));
  tx.commit();
}

const tcp = (i: number) => ({
  id: `tcp-${i}`, name: `c${i}`, checkType: 'TCP', activated: true, frequency: 1, frequencyOffset: 30,
  locations: [], privateLocations: [], runParallel: false, request: { hostname: 'h.example', port: 1 },
});
const heartbeat = { id: 'hb', name: 'hb', checkType: 'HEARTBEAT', activated: true, heartbeat: { period: 60, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds', pingToken: 't' } };

describe('scheduler ticks', () => {
  it('read no stored check while nothing is due and nothing changed; scan again when a check is due or written', async () => {
    clock = START;
    h = runsHarness({ now: () => clock });
    // A listing of the checks counts too (on PostgreSQL the records come back parsed, without the probe).
    const list = h.server.ctx.store.list.bind(h.server.ctx.store);
    vi.spyOn(h.server.ctx.store, 'list').mockImplementation((account, kind) => (kind === COLL.checks && reads++, list(account, kind)) as never);
    const started: string[] = [];
    // Sessions are not the point here: record which checks would start instead of running them.
    vi.spyOn(h.runs.engine, 'startSession').mockImplementation((_account, check) => (started.push(check.id), undefined as never));
    for (let i = 0; i < 10; i++) storeProbe(tcp(i));
    storeProbe(heartbeat);

    h.runs.scheduler.tick();
    expect(reads).toBeGreaterThan(0); // first sight: TCP checks due at +30 s, the heartbeat deadline at +60 s
    expect(started).toEqual([]);

    reads = 0;
    for (let s = 1; s < 30; s++) {
      clock = START + s * 1000;
      h.runs.scheduler.tick();
    }
    // A write to a kind the scheduler does not read changes nothing either.
    const tx = h.server.ctx.store.begin('dev');
    tx.put(COLL.snippets, 1, { id: 1, name: 's', script: '' });
    tx.commit();
    h.runs.scheduler.tick();
    expect(reads).toBe(0);

    clock = START + 30_000;
    h.runs.scheduler.tick();
    expect(reads).toBeGreaterThan(0);
    expect(started).toHaveLength(10);

    reads = 0;
    clock = START + 31_000;
    h.runs.scheduler.tick();
    expect(reads).toBe(0);

    // A written check is seen at the next tick, though nothing is due.
    storeProbe({ ...tcp(10), frequencyOffset: 5 });
    h.runs.scheduler.tick();
    expect(reads).toBeGreaterThan(0);
    expect(started).toHaveLength(10);

    // The heartbeat deadline (+60 s) wakes the scheduler before the TCP checks' next runs (+90 s).
    reads = 0;
    clock = START + 35_000;
    h.runs.scheduler.tick(); // the new check, first due at +36 s, is not yet due
    expect(reads).toBe(0);
    clock = START + 36_000;
    h.runs.scheduler.tick();
    expect(started).toHaveLength(11);
    reads = 0;
    clock = START + 59_999;
    h.runs.scheduler.tick();
    expect(reads).toBe(0);
    clock = START + 60_000;
    h.runs.scheduler.tick();
    expect(reads).toBeGreaterThan(0);
    const events = (await h.call('GET', '/v1/checks/heartbeats/hb/events')).body[0].events.map((e: any) => e.state);
    expect(events).toEqual(['FAILING']);
    expect(started).toHaveLength(11);
  });
});
