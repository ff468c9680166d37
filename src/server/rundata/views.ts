/**
 * Read-side projections of run data: what endpoints 10 and 11 return. A session past its
 * deadline reads as TIMED_OUT even before anything writes it (the status is a function of time).
 */
import { countedOutcomes, nextSessionStatus, stoppedAtFor } from './session-status.js';
import type { CheckResult, StoredSession } from './types.js';

/** Link of a result on this API's own GET route. */
export function checkResultLink(origin: string, checkId: string, resultId: string): string {
  return `${origin}/v1/check-results/${encodeURIComponent(checkId)}/${encodeURIComponent(resultId)}`;
}

/** The session body of endpoint 11 (spec §2.16), evaluated at `nowMs`. */
export function sessionView(s: StoredSession, results: readonly CheckResult[], origin: string, nowMs: number) {
  const startedAtMs = Date.parse(s.startedAt);
  const finals = results.filter((r) => r.resultType === 'FINAL');
  const status = nextSessionStatus({
    current: s.status,
    executing: s.executing,
    locationCount: s.runLocations.length,
    finished: countedOutcomes(finals, s.sequences, s.notRunLocations),
    startedAtMs,
    nowMs,
  });
  const stoppedAt = s.stoppedAt ?? stoppedAtFor(status, startedAtMs, nowMs);
  return {
    checkSessionId: s.checkSessionId,
    checkSessionLink: `${origin}/v1/check-sessions/${encodeURIComponent(s.checkSessionId)}`,
    checkId: s.checkId,
    checkType: s.checkType,
    status,
    startedAt: s.startedAt,
    stoppedAt,
    timeElapsed: (stoppedAt === null ? nowMs : Date.parse(stoppedAt)) - startedAtMs,
    runLocations: s.runLocations,
    name: s.name,
    results: results.map((r) => ({
      checkResultId: r.id,
      checkResultLink: checkResultLink(origin, r.checkId, r.id),
      checkId: r.checkId,
      checkType: s.checkType,
      runLocation: r.runLocation,
      resultType: r.resultType,
      hasErrors: r.hasErrors,
      hasFailures: r.hasFailures,
      // The reference requires a boolean here; kinds without response-time limits (multi-step,
      // heartbeat) store null in their result, which is not degraded.
      isDegraded: r.isDegraded === true,
      // Only ended attempts are stored, so none of them was cut short.
      aborted: false,
      name: r.name,
    })),
  };
}
