import { describe, expect, it } from 'vitest';
import { createProgressReporter, formatProgressLine } from '../../../src/apply/progress.js';
import type { ChangeOutcome } from '../../../src/apply/result.js';

const applied: ChangeOutcome = { key: 'TcpCheck/a', action: 'create', kind: 'TcpCheck', id: 'a', status: 'applied' };
const failed: ChangeOutcome = { ...applied, key: 'TcpCheck/b', id: 'b', status: 'failed', error: '400 bad' };

function sink(interactive: boolean) {
  const events: string[] = [];
  return { events, interactive, progress: (t: string) => events.push(t), endProgress: () => events.push('<end>') };
}

describe('progress', () => {
  it('formats the live line with failures only when there are some', () => {
    expect(formatProgressLine({ done: 3, total: 10, failed: 0, skipped: 0 }, 41.6)).toBe('applying 3/10, 42 req/s');
    expect(formatProgressLine({ done: 3, total: 10, failed: 1, skipped: 2 }, 5)).toBe('applying 3/10, 1 failed, 2 skipped, 5 req/s');
  });

  it('prints one plain line per change without a TTY', () => {
    const s = sink(false);
    const r = createProgressReporter({ sink: s, requests: () => 0, batchMs: 0 });
    r.onProgress({ done: 1, total: 2, failed: 0, skipped: 0 }, applied);
    r.onProgress({ done: 2, total: 2, failed: 1, skipped: 0 }, failed);
    r.finish();
    expect(s.events).toEqual(['[1/2] created TcpCheck/a', '[2/2] failed create TcpCheck/b: 400 bad', '<end>']);
  });

  it('writes the plain lines in batches without a TTY: one write per batch, the rest at the end', async () => {
    const s = sink(false);
    const r = createProgressReporter({ sink: s, requests: () => 0, batchMs: 20 });
    r.onProgress({ done: 1, total: 3, failed: 0, skipped: 0 }, applied);
    r.onProgress({ done: 2, total: 3, failed: 1, skipped: 0 }, failed);
    expect(s.events).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(s.events).toEqual(['[1/3] created TcpCheck/a\n[2/3] failed create TcpCheck/b: 400 bad']);
    r.onProgress({ done: 3, total: 3, failed: 1, skipped: 0 }, applied);
    r.finish();
    expect(s.events).toEqual(['[1/3] created TcpCheck/a\n[2/3] failed create TcpCheck/b: 400 bad', '[3/3] created TcpCheck/a', '<end>']);
  });

  it('writes pending lines when the process exits before finish (a signal ends it with process.exit)', () => {
    const s = sink(false);
    const before = process.listenerCount('exit');
    const r = createProgressReporter({ sink: s, requests: () => 0, batchMs: 10_000 });
    r.onProgress({ done: 1, total: 2, failed: 0, skipped: 0 }, applied);
    expect(process.listenerCount('exit')).toBe(before + 1);
    process.emit('exit', 130);
    expect(s.events).toEqual(['[1/2] created TcpCheck/a']);
    r.finish();
    expect(process.listenerCount('exit')).toBe(before);
  });

  it('redraws the live line at most every redrawMs on a TTY, keeps failures, and computes the rate', () => {
    const s = sink(true);
    let t = 0;
    let requests = 0;
    const r = createProgressReporter({ sink: s, requests: () => requests, now: () => t, redrawMs: 100 });
    t = 1000;
    requests = 20;
    r.onProgress({ done: 1, total: 3, failed: 0, skipped: 0 }, applied);
    t = 1050;
    r.onProgress({ done: 2, total: 3, failed: 0, skipped: 0 }, applied); // within 100 ms: not redrawn
    t = 2000;
    requests = 40;
    r.onProgress({ done: 3, total: 3, failed: 1, skipped: 0 }, failed);
    r.finish();
    expect(s.events).toEqual([
      'applying 1/3, 20 req/s',
      '<end>',
      '[3/3] failed create TcpCheck/b: 400 bad',
      '<end>',
      'applying 3/3, 1 failed, 0 skipped, 20 req/s',
      '<end>',
    ]);
  });
});
