import { afterAll, describe, expect, it } from 'vitest';
import { ASSERTION_SOURCES_CHEAP, evaluateAssertions, MAX_ACTUAL_CHARS } from '../../../src/runner/assertions.js';
import { AssertionPool, cheapAssertions } from '../../../src/runner/assertion-pool.js';
import { REGEX_TIME_LIMIT_MS } from '../../../src/runner/regex.js';
import type { Assertion } from '../../../src/runner/types.js';

// The pool runs the built worker module (dist/runner/assertion-worker.js): `npm run build` first.

const a = (source: string, comparison: string, target = '', property = '', regex = ''): Assertion => ({ source, comparison, target, property, regex });
const catastrophic = a('TEXT_BODY', 'EQUALS', 'x', '', '(a+)+$');
const hostileBody = `${'a'.repeat(40)}!`;

describe('assertions within a budget', () => {
  it('stops at the budget: the assertions left fail unevaluated, and it says so', () => {
    const assertions = [a('TEXT_BODY', 'CONTAINS', 'aaa'), ...Array.from({ length: 20 }, () => catastrophic), a('TEXT_BODY', 'CONTAINS', 'aaa')];
    const began = performance.now();
    const e = evaluateAssertions(assertions, { TEXT_BODY: hostileBody }, 250);
    // Unbounded: 20 x 100 ms (the per-regex limit). Wide margin for a loaded machine.
    expect(performance.now() - began).toBeLessThan(1500);
    expect(e.overBudget).toBe(true);
    expect(e.evaluated).toBeGreaterThanOrEqual(2);
    expect(e.evaluated).toBeLessThan(assertions.length);
    expect(e.results[0]).toMatchObject({ passed: true, actual: hostileBody });
    // The last one would pass, but was never evaluated.
    expect(e.results.at(-1)).toMatchObject({ passed: false, actual: null });
    expect(e.results).toHaveLength(assertions.length);
  });

  it('evaluates everything when the budget allows, and parses JSON_BODY from TEXT_BODY only for an assertion on it', () => {
    const e = evaluateAssertions(
      [a('JSON_BODY', 'EQUALS', '7', '$.v'), a('TEXT_BODY', 'CONTAINS', '"v"'), a('STATUS_CODE', 'EQUALS', '200')],
      { TEXT_BODY: '{"v":7}', JSON_BODY: undefined, STATUS_CODE: 200 },
      1000,
    );
    expect(e).toMatchObject({ overBudget: false, evaluated: 3 });
    expect(e.results.map((r) => r.passed)).toEqual([true, true, true]);
  });

  it('keeps at most MAX_ACTUAL_CHARS of what an assertion found', () => {
    const body = 'x'.repeat(MAX_ACTUAL_CHARS * 10);
    const [r] = evaluateAssertions([a('TEXT_BODY', 'NOT_EMPTY')], { TEXT_BODY: body }, 1000).results;
    expect(r.passed).toBe(true);
    expect(r.actual!.length).toBe(MAX_ACTUAL_CHARS + 1);
    expect(r.actual!.endsWith('…')).toBe(true);
  });

  it('tells which assertions need no other thread: small sources without a regex', () => {
    expect(cheapAssertions([a('STATUS_CODE', 'EQUALS', '200'), a('HEADERS', 'EQUALS', 'x', 'etag'), a('RESPONSE_TIME', 'LESS_THAN', '9')])).toBe(true);
    expect(cheapAssertions([a('STATUS_CODE', 'EQUALS', '200', '', '(\\d)')])).toBe(false);
    expect(cheapAssertions([a('TEXT_BODY', 'CONTAINS', 'ok')])).toBe(false);
    expect(cheapAssertions([a('JSON_BODY', 'EQUALS', '1', '$.a')])).toBe(false);
    expect(ASSERTION_SOURCES_CHEAP.has('RESPONSE_DATA')).toBe(false);
  });
});

describe('the assertion pool', () => {
  const pool = new AssertionPool(1);
  afterAll(() => pool.close());

  it('evaluates on another thread: the event loop here keeps turning while 10 catastrophic regexes run', async () => {
    const ticks: number[] = [];
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      ticks.push(now - last);
      last = now;
    }, 10);
    const e = await pool.evaluate('acct', Array.from({ length: 10 }, () => catastrophic), { TEXT_BODY: hostileBody }, 5000);
    clearInterval(timer);
    expect(e.evaluated).toBe(10);
    expect(e.results.every((r) => !r.passed && r.actual === null)).toBe(true);
    // About 1 s of regex work happened meanwhile (10 x 100 ms); on this thread it would be one gap of 1 s.
    expect(e.elapsedMs).toBeGreaterThanOrEqual(10 * REGEX_TIME_LIMIT_MS * 0.9);
    expect(ticks.length).toBeGreaterThan(5);
    expect(Math.max(...ticks)).toBeLessThan(e.elapsedMs / 2);
  });

  it('stops a thread that overruns its budget (work a regex limit cannot interrupt), and goes on with a new one', async () => {
    // No grace: the thread is stopped as soon as its budget is spent. Parsing 5 MB of JSON for the
    // JSON_BODY assertion takes far longer than 5 ms on any machine, and nothing interrupts it.
    const strict = new AssertionPool(1, 0);
    try {
      const text = `[${Array.from({ length: 200_000 }, (_, i) => `{"k":${i},"s":"abcdefgh"}`).join(',')}]`;
      const e = await strict.evaluate('acct', [a('JSON_BODY', 'NOT_EMPTY')], { TEXT_BODY: text, JSON_BODY: undefined }, 5);
      expect(e).toMatchObject({ overBudget: true, evaluated: 0, elapsedMs: 5 });
      expect(e.results).toEqual([{ ...a('JSON_BODY', 'NOT_EMPTY'), actual: null, passed: false }]);
      const next = await strict.evaluate('acct', [a('TEXT_BODY', 'EQUALS', 'ok')], { TEXT_BODY: 'ok' }, 60_000);
      expect(next).toMatchObject({ overBudget: false, evaluated: 1 });
      expect(next.results[0].passed).toBe(true);
    } finally {
      await strict.close();
    }
  });

  it('gives accounts turns: another account waits for at most one attempt of a busy one', async () => {
    const order: string[] = [];
    const busy = Array.from({ length: 4 }, (_, i) =>
      pool.evaluate('busy', [catastrophic], { TEXT_BODY: hostileBody }, 1000).then(() => order.push(`busy${i}`)),
    );
    const other = pool.evaluate('other', [a('TEXT_BODY', 'EQUALS', 'ok')], { TEXT_BODY: 'ok' }, 1000).then(() => order.push('other'));
    await Promise.all([...busy, other]);
    expect(order.indexOf('other')).toBeLessThanOrEqual(1);
  });
});
