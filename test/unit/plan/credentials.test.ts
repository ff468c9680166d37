import { describe, expect, it } from 'vitest';
import { assemblePlan, requestBody } from '../../../src/plan/index.js';
import { def, live, project } from './fixtures.js';

// Alert-channel credentials read back from the API, so they are compared; but a plan, in any
// format and in its file, must never hold them, and apply must still be able to send them.
const SECRET = 'whS3cret-do-not-print';
const hook = (webhookSecret: string) =>
  def('AlertChannel', 'hook', { type: 'WEBHOOK', config: { name: 'hook', url: 'https://hooks.example/h', webhookSecret } });
const liveHook = (webhookSecret: string) => ({
  id: 7, type: 'WEBHOOK', sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false,
  sslExpiryThreshold: 30, autoSubscribe: false, subscriptions: [], created_at: '2026-01-01T00:00:00.000Z', updated_at: null,
  config: { name: 'hook', url: 'https://hooks.example/h', method: 'POST', template: '', headers: [], queryParameters: [], webhookSecret, webhookType: null },
});
const planOf = (liveItems: Record<string, unknown>[]) =>
  assemblePlan({ project: project([hook(SECRET)]), live: live({ AlertChannel: liveItems }), apiUrl: 'http://127.0.0.1:4010', prune: false, now: new Date(0) });

describe('alert-channel credentials', () => {
  it('are masked in a create and left out of the plan document, yet sent by apply', () => {
    const p = planOf([]);
    const change = p.changes[0];
    expect(change.action).toBe('create');
    expect(JSON.stringify(p)).not.toContain(SECRET);
    expect(change.secrets).toContainEqual({ path: '/config/webhookSecret' });
    const body = requestBody(change, new Map(), new Map([['/config/webhookSecret', SECRET]]));
    expect((body.config as Record<string, unknown>).webhookSecret).toBe(SECRET);
  });

  it('are compared: a changed one is an update shown as (sensitive) on both sides', () => {
    expect(planOf([liveHook(SECRET)]).summary.noop).toBe(1);
    const p = planOf([liveHook('old-value-do-not-print')]);
    expect(p.changes[0].patch).toEqual([{ op: 'replace', path: '/config/webhookSecret', value: '(sensitive)', oldValue: '(sensitive)' }]);
    expect(JSON.stringify(p)).not.toMatch(/do-not-print/);
  });
});
