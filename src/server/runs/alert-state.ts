/**
 * A check's alert state (api-decisions §5.7), moved by each finished session. Pure: the
 * caller stores the returned memory and delivers the returned alerts.
 */

/** What a check's alerts currently say. */
export type AlertState = 'PASSING' | 'DEGRADED' | 'FAILING';

/** The alert types channels receive. */
export type AlertType = 'ALERT_FAILURE' | 'ALERT_RECOVERY' | 'ALERT_DEGRADED';

/** How one finished session came out, for alerting. */
export type SessionVerdict = 'passed' | 'degraded' | 'failed';

/** `alertSettings` of a check, as stored (defaults per api-decisions §3.1). */
export interface AlertSettings {
  escalationType?: 'RUN_BASED' | 'TIME_BASED';
  runBasedEscalation?: { failedRunThreshold?: number };
  timeBasedEscalation?: { minutesFailingThreshold?: number };
  reminders?: { amount?: number; interval?: number };
}

/** What is remembered per check between sessions. */
export interface AlertMemory {
  state: AlertState;
  /** Consecutive failed sessions, reset by any other verdict. */
  consecutiveFailures: number;
  /** When the current failing streak began (ms), null when not failing. */
  failingSinceMs: number | null;
  /** When the failure alert or the last reminder went out (ms). */
  lastFailureAlertMs: number | null;
  remindersSent: number;
}

/** A check that has never run. */
export const INITIAL_ALERT_MEMORY: AlertMemory = {
  state: 'PASSING',
  consecutiveFailures: 0,
  failingSinceMs: null,
  lastFailureAlertMs: null,
  remindersSent: 0,
};

/** One state change (or reminder) to announce. */
export interface AlertEvent {
  alertType: AlertType;
  /** True for a repeated failure alert sent as a reminder. */
  reminder: boolean;
}

/** The outcome of one session for alerting: new memory and what to announce. */
export interface AlertStep {
  memory: AlertMemory;
  events: AlertEvent[];
  /** The state before this session (to open or resolve incidents on FAILING edges). */
  previous: AlertState;
}

/**
 * Moves the alert state by one session's verdict at `nowMs`. `minuteMs` is the length of a
 * minute on the service's clock (60000 divided by the time scale).
 */
export function stepAlertState(memory: AlertMemory, verdict: SessionVerdict, settings: AlertSettings, nowMs: number, minuteMs: number): AlertStep {
  const previous = memory.state;
  if (verdict !== 'failed') {
    const state: AlertState = verdict === 'degraded' ? 'DEGRADED' : 'PASSING';
    const next: AlertMemory = { ...INITIAL_ALERT_MEMORY, state };
    if (state === previous) return { memory: next, events: [], previous };
    // Leaving FAILING for DEGRADED is announced as degraded: the check is up, but slow.
    const alertType: AlertType = state === 'DEGRADED' ? 'ALERT_DEGRADED' : 'ALERT_RECOVERY';
    return { memory: next, events: [{ alertType, reminder: false }], previous };
  }
  const failingSinceMs = memory.failingSinceMs ?? nowMs;
  const consecutiveFailures = memory.consecutiveFailures + 1;
  const base = { ...memory, consecutiveFailures, failingSinceMs };
  if (previous === 'FAILING') {
    const { amount = 0, interval = 5 } = settings.reminders ?? {};
    const due = memory.lastFailureAlertMs !== null && nowMs - memory.lastFailureAlertMs >= interval * minuteMs;
    if (memory.remindersSent < amount && due) {
      return {
        memory: { ...base, lastFailureAlertMs: nowMs, remindersSent: memory.remindersSent + 1 },
        events: [{ alertType: 'ALERT_FAILURE', reminder: true }],
        previous,
      };
    }
    return { memory: base, events: [], previous };
  }
  if (!escalates(settings, consecutiveFailures, nowMs - failingSinceMs, minuteMs)) return { memory: base, events: [], previous };
  return {
    memory: { ...base, state: 'FAILING', lastFailureAlertMs: nowMs, remindersSent: 0 },
    events: [{ alertType: 'ALERT_FAILURE', reminder: false }],
    previous,
  };
}

function escalates(settings: AlertSettings, failures: number, failingForMs: number, minuteMs: number): boolean {
  if (settings.escalationType === 'TIME_BASED') {
    const minutes = settings.timeBasedEscalation?.minutesFailingThreshold ?? 5;
    return failingForMs >= minutes * minuteMs;
  }
  return failures >= (settings.runBasedEscalation?.failedRunThreshold ?? 1);
}

/** Which channel flag allows an alert type. */
export const SEND_FLAG: Record<AlertType, 'sendFailure' | 'sendRecovery' | 'sendDegraded'> = {
  ALERT_FAILURE: 'sendFailure',
  ALERT_RECOVERY: 'sendRecovery',
  ALERT_DEGRADED: 'sendDegraded',
};

/** Per-location outcomes of a session -> its alert verdict, honouring parallelRunFailureThreshold. */
export function sessionVerdict(
  locations: Array<{ hasFailures: boolean; hasErrors: boolean; isDegraded: boolean | null }>,
  threshold?: { enabled?: boolean; percentage?: number },
): SessionVerdict {
  const failed = locations.filter((l) => l.hasFailures || l.hasErrors).length;
  const failing = threshold?.enabled ? failed > 0 && (100 * failed) / locations.length >= (threshold.percentage ?? 10) : failed > 0;
  if (failing) return 'failed';
  return locations.some((l) => l.isDegraded === true) ? 'degraded' : 'passed';
}
