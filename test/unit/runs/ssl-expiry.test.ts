import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runsHarness, startReceiver, type Receiver, type RunsHarness } from './harness.js';
import { startHttpTarget, type HttpTarget } from '../../helpers/http-target.js';

// The target's self-signed certificate is valid for one day (test/helpers/http-target.ts): its
// days left (0) are below every threshold.
let target: HttpTarget;
let receiver: Receiver;
let h: RunsHarness;

beforeAll(async () => {
  target = await startHttpTarget({ tls: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await target.close();
  await receiver.close();
});
afterEach(async () => {
  await h?.close();
});

const urlCheck = (url: string) => ({
  name: 'shop home',
  checkType: 'URL',
  request: { url, method: 'GET', followRedirects: true, skipSSL: true, ipFamily: 'IPv4', assertions: [] },
});

async function trigger(checkId: string): Promise<void> {
  const res = await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: [checkId] } });
  expect(res.status).toBe(201);
  await h.runs.engine.idle();
  await h.server.deliverer.idle();
}

describe('SSL certificate expiry', () => {
  it('records the certificate and alerts each channel that watches expiry once a day', async () => {
    h = runsHarness();
    receiver.requests.length = 0;
    const check = h.seedCheck(urlCheck(`${target.origin}/`));
    const watching = h.seedChannel(check.id, { type: 'WEBHOOK', sendFailure: false, sslExpiry: true, sslExpiryThreshold: 14, config: { name: 'ssl', url: `${receiver.url}/ssl`, method: 'POST' } });
    h.seedChannel(check.id, { type: 'WEBHOOK', sendFailure: false, sslExpiry: false, config: { name: 'other', url: `${receiver.url}/other`, method: 'POST' } });
    await trigger(check.id);
    // Failure alerts are off on both channels: what arrives is about the certificate only.
    const [result] = (await h.call('GET', `/v1/check-results/${check.id}`)).body;
    const cert = result.apiCheckResult.certificate;
    expect(cert.subject).toBe('localhost');
    expect(Date.parse(cert.validTo) - Date.now()).toBeLessThan(2 * 86_400_000);
    expect(cert.fingerprint256).toMatch(/^[0-9A-F:]{95}$/);

    const notes = (await h.call('GET', '/v1/alert-notifications')).body as any[];
    expect(notes.map((n) => [n.alertType, n.alertChannelId, n.status])).toEqual([['ALERT_SSL_EXPIRY', watching, 'SUCCESS']]);
    expect(receiver.requests.map((r) => r.url)).toEqual(['/ssl']);

    // Same certificate, same day: no second alert.
    await trigger(check.id);
    expect((await h.call('GET', '/v1/alert-notifications')).body).toHaveLength(1);
  });

  it('stays quiet while the days left are above the threshold', async () => {
    h = runsHarness({ now: () => Date.now() - 60 * 86_400_000 });
    const check = h.seedCheck(urlCheck(`${target.origin}/`));
    h.seedChannel(check.id, { type: 'WEBHOOK', sslExpiry: true, sslExpiryThreshold: 30, config: { name: 'ssl', url: `${receiver.url}/ssl`, method: 'POST' } });
    await trigger(check.id);
    expect((await h.call('GET', '/v1/alert-notifications')).body).toEqual([]);
  });
});
