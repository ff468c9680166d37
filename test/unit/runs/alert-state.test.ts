import { describe, expect, it } from 'vitest';
import { INITIAL_ALERT_MEMORY, sessionVerdict, stepAlertState, type AlertMemory, type AlertSettings, type SessionVerdict } from '../../../src/server/runs/alert-state.js';

const MIN = 60_000;

/** Feeds verdicts one minute apart and collects the alerts each produced. */
function feed(verdicts: SessionVerdict[], settings: AlertSettings = {}): { alerts: string[][]; memory: AlertMemory } {
  let memory = INITIAL_ALERT_MEMORY;
  const alerts: string[][] = [];
  verdicts.forEach((v, i) => {
    const step = stepAlertState(memory, v, settings, i * MIN, MIN);
    memory = step.memory;
    alerts.push(step.events.map((e) => (e.reminder ? `${e.alertType}(reminder)` : e.alertType)));
  });
  return { alerts, memory };
}

describe('alert state', () => {
  it('alerts on the first failure by default and recovers on the first pass', () => {
    expect(feed(['passed', 'failed', 'failed', 'passed', 'passed']).alerts).toEqual([[], ['ALERT_FAILURE'], [], ['ALERT_RECOVERY'], []]);
  });

  it('waits for failedRunThreshold consecutive failures (RUN_BASED)', () => {
    const settings: AlertSettings = { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 3 } };
    expect(feed(['failed', 'failed', 'passed', 'failed', 'failed', 'failed'], settings).alerts).toEqual([[], [], [], [], [], ['ALERT_FAILURE']]);
  });

  it('waits minutesFailingThreshold minutes of failing (TIME_BASED)', () => {
    const settings: AlertSettings = { escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 5 } };
    const { alerts } = feed(['failed', 'failed', 'failed', 'failed', 'failed', 'failed', 'failed'], settings);
    expect(alerts.findIndex((a) => a.length > 0)).toBe(5);
  });

  it('announces degradation and its end', () => {
    expect(feed(['passed', 'degraded', 'degraded', 'passed']).alerts).toEqual([[], ['ALERT_DEGRADED'], [], ['ALERT_RECOVERY']]);
    expect(feed(['failed', 'degraded']).alerts).toEqual([['ALERT_FAILURE'], ['ALERT_DEGRADED']]);
  });

  it('sends reminders every interval minutes while failing, at most amount times', () => {
    const settings: AlertSettings = { reminders: { amount: 2, interval: 2 } };
    const { alerts } = feed(Array<SessionVerdict>(8).fill('failed'), settings);
    expect(alerts).toEqual([['ALERT_FAILURE'], [], ['ALERT_FAILURE(reminder)'], [], ['ALERT_FAILURE(reminder)'], [], [], []]);
  });

  it('judges parallel sessions with parallelRunFailureThreshold', () => {
    const ok = { hasFailures: false, hasErrors: false, isDegraded: false };
    const bad = { hasFailures: true, hasErrors: false, isDegraded: false };
    const slow = { ...ok, isDegraded: true };
    expect(sessionVerdict([ok, bad, ok, ok])).toBe('failed');
    expect(sessionVerdict([ok, bad, ok, ok], { enabled: true, percentage: 50 })).toBe('passed');
    expect(sessionVerdict([bad, bad, ok, ok], { enabled: true, percentage: 50 })).toBe('failed');
    expect(sessionVerdict([ok, slow])).toBe('degraded');
    expect(sessionVerdict([{ ...ok, hasErrors: true }])).toBe('failed');
  });
});
