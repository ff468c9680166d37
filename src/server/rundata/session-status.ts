/**
 * Session status (decisions §5.2), computed from FINAL results only and moving forward only.
 */
import type { SessionStatus } from './types.js';

/** A session runs out of time this long after `startedAt`. */
export const SESSION_TIMEOUT_MS = 5 * 60_000;

const TERMINAL: ReadonlySet<SessionStatus> = new Set(['FAILED', 'DEGRADED', 'PASSED', 'TIMED_OUT']);

// Rank of the non-terminal statuses along the only allowed path.
const RANK: Record<SessionStatus, number> = {
  STARTED: 0,
  PROGRESS: 1,
  PROGRESS_DEGRADED: 2,
  PROGRESS_FAILED: 3,
  FAILED: 4,
  DEGRADED: 4,
  PASSED: 4,
  TIMED_OUT: 4,
};

/** True for a status that never changes again. */
export function isTerminal(s: SessionStatus): boolean {
  return TERMINAL.has(s);
}

/** The verdict of one finished location (its FINAL result). */
export interface LocationOutcome {
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
}

/**
 * The outcomes a joined session's status and verdict are taken over: a slot recorded as not run
 * (no agent ran it in time; its result has an error) counts as finished but judges nothing, so the
 * verdict is taken over what ran. When nothing ran, the not-run results judge (never a pass).
 */
export function countedOutcomes<T extends LocationOutcome & { sequenceId?: string | null }>(finals: readonly T[], sequences: Record<string, string>, notRun: readonly string[] | undefined): LocationOutcome[] {
  if (!notRun || notRun.length === 0) return [...finals];
  const skipped = new Set(notRun.map((slot) => sequences[slot]).filter((id): id is string => id !== undefined));
  const isSkipped = (f: T) => typeof f.sequenceId === 'string' && skipped.has(f.sequenceId);
  if (finals.every(isSkipped)) return [...finals];
  return finals.map((f) => (isSkipped(f) ? { hasFailures: false, hasErrors: false, isDegraded: null } : f));
}

/** What the status is computed from. */
export interface SessionFacts {
  current: SessionStatus;
  /** Whether any attempt has begun executing. */
  executing: boolean;
  locationCount: number;
  finished: LocationOutcome[];
  startedAtMs: number;
  nowMs: number;
}

function observed(f: SessionFacts): SessionStatus {
  // `nowMs` is when the facts were observed: a location finishing after the deadline is too late.
  if (f.nowMs - f.startedAtMs >= SESSION_TIMEOUT_MS) return 'TIMED_OUT';
  const failed = f.finished.some((o) => o.hasFailures || o.hasErrors);
  const degraded = f.finished.some((o) => o.isDegraded === true);
  if (f.finished.length >= f.locationCount && f.locationCount > 0) {
    return failed ? 'FAILED' : degraded ? 'DEGRADED' : 'PASSED';
  }
  if (failed) return 'PROGRESS_FAILED';
  if (degraded) return 'PROGRESS_DEGRADED';
  return f.executing || f.finished.length > 0 ? 'PROGRESS' : 'STARTED';
}

/** The next status: the observed one unless that would move backward or leave a terminal status. */
export function nextSessionStatus(f: SessionFacts): SessionStatus {
  if (isTerminal(f.current)) return f.current;
  const seen = observed(f);
  return RANK[seen] >= RANK[f.current] ? seen : f.current;
}

/** When a terminal status was reached: a timeout stops the clock at the deadline. */
export function stoppedAtFor(status: SessionStatus, startedAtMs: number, nowMs: number): string | null {
  if (!isTerminal(status)) return null;
  return new Date(status === 'TIMED_OUT' ? startedAtMs + SESSION_TIMEOUT_MS : nowMs).toISOString();
}
