import { describe, expect, it } from 'vitest';
import { nextSessionStatus, stoppedAtFor, SESSION_TIMEOUT_MS, type LocationOutcome, type SessionFacts } from '../../src/server/rundata/session-status.js';

const pass: LocationOutcome = { hasFailures: false, hasErrors: false, isDegraded: false };
const fail: LocationOutcome = { hasFailures: true, hasErrors: false, isDegraded: false };
const error: LocationOutcome = { hasFailures: false, hasErrors: true, isDegraded: null };
const degraded: LocationOutcome = { hasFailures: false, hasErrors: false, isDegraded: true };

const facts = (over: Partial<SessionFacts>): SessionFacts => ({
  current: 'STARTED',
  executing: false,
  locationCount: 3,
  finished: [],
  startedAtMs: 0,
  nowMs: 1000,
  ...over,
});

describe('nextSessionStatus', () => {
  it('stays STARTED until something executes', () => {
    expect(nextSessionStatus(facts({}))).toBe('STARTED');
    expect(nextSessionStatus(facts({ executing: true }))).toBe('PROGRESS');
  });
  it('reports progress by the worst finished location', () => {
    expect(nextSessionStatus(facts({ executing: true, finished: [pass] }))).toBe('PROGRESS');
    expect(nextSessionStatus(facts({ executing: true, finished: [pass, degraded] }))).toBe('PROGRESS_DEGRADED');
    expect(nextSessionStatus(facts({ executing: true, finished: [degraded, fail] }))).toBe('PROGRESS_FAILED');
    expect(nextSessionStatus(facts({ executing: true, finished: [error] }))).toBe('PROGRESS_FAILED');
  });
  it('ends when every location finished', () => {
    expect(nextSessionStatus(facts({ current: 'PROGRESS', finished: [pass, pass, pass] }))).toBe('PASSED');
    expect(nextSessionStatus(facts({ current: 'PROGRESS_DEGRADED', finished: [pass, degraded, pass] }))).toBe('DEGRADED');
    expect(nextSessionStatus(facts({ current: 'PROGRESS', finished: [pass, degraded, fail] }))).toBe('FAILED');
    expect(nextSessionStatus(facts({ current: 'PROGRESS', finished: [pass, pass, error] }))).toBe('FAILED');
    expect(nextSessionStatus(facts({ locationCount: 1, finished: [pass] }))).toBe('PASSED');
  });
  it('never moves backward', () => {
    // A degraded location seen earlier keeps the session at PROGRESS_DEGRADED even if the facts regress.
    expect(nextSessionStatus(facts({ current: 'PROGRESS_DEGRADED', executing: true, finished: [pass] }))).toBe('PROGRESS_DEGRADED');
    expect(nextSessionStatus(facts({ current: 'PROGRESS', executing: false }))).toBe('PROGRESS');
  });
  it('keeps a terminal status', () => {
    expect(nextSessionStatus(facts({ current: 'PASSED', finished: [fail, fail, fail] }))).toBe('PASSED');
    expect(nextSessionStatus(facts({ current: 'TIMED_OUT', finished: [pass, pass, pass] }))).toBe('TIMED_OUT');
  });
  it('times out 5 minutes after start when unfinished', () => {
    expect(nextSessionStatus(facts({ current: 'PROGRESS_FAILED', finished: [fail], nowMs: SESSION_TIMEOUT_MS - 1 }))).toBe('PROGRESS_FAILED');
    expect(nextSessionStatus(facts({ current: 'PROGRESS_FAILED', finished: [fail], nowMs: SESSION_TIMEOUT_MS }))).toBe('TIMED_OUT');
    // Finishing after the deadline is too late; a session that ended in time keeps its verdict.
    expect(nextSessionStatus(facts({ current: 'PROGRESS', finished: [pass, pass, pass], nowMs: SESSION_TIMEOUT_MS + 1 }))).toBe('TIMED_OUT');
    expect(nextSessionStatus(facts({ current: 'PASSED', finished: [pass, pass, pass], nowMs: 10 * SESSION_TIMEOUT_MS }))).toBe('PASSED');
  });
});

describe('stoppedAtFor', () => {
  it('is null until terminal; a timeout stops at the deadline', () => {
    expect(stoppedAtFor('PROGRESS', 0, 5)).toBeNull();
    expect(stoppedAtFor('PASSED', 0, 5)).toBe(new Date(5).toISOString());
    expect(stoppedAtFor('TIMED_OUT', 0, 10 * SESSION_TIMEOUT_MS)).toBe(new Date(SESSION_TIMEOUT_MS).toISOString());
  });
});
