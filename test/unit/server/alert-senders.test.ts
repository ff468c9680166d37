import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSenders, type Senders } from '../../../src/server/alerts/channels.js';
import { MAX_OUTCOME_CHARS } from '../../../src/server/alerts/outcome.js';
import { resolveSenderSettings } from '../../../src/server/alerts/settings.js';
import type { AlertMessage, ChannelRecord, PhoneSettings, SendOutcome, SenderSettings } from '../../../src/server/alerts/types.js';

// Every HTTP channel against a local receiver shaped like the provider's API: the body checked
// against the provider's documented shape, and each kind of answer turned into a truthful outcome.

/** One request as the receiver saw it. */
interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang' | 'trickle';

/** A local HTTP receiver: records each request and answers what `answer` says. */
interface Receiver {
  url: string;
  seen: Seen[];
  answer: (req: Seen) => Answer;
}

let receiver: Receiver;
let stop: () => Promise<void>;
/** Origins the network-policy dispatcher saw: every request must go through it. */
let dispatched: string[];
let dispatcher: Dispatcher;
let agent: Agent;

beforeEach(async () => {
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const r: Receiver = { url: '', seen: [], answer: () => ({ status: 200, body: 'ok' }) };
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const seen: Seen = { method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      r.seen.push(seen);
      const a = r.answer(seen);
      if (a === 'hang') return;
      if (a === 'trickle') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const t = setInterval(() => res.write('.'), 50);
        timers.add(t);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
      res.end(a.body ?? '');
    });
  });
  srv.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  receiver = r;
  stop = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      srv.close(() => resolve());
    });
  dispatched = [];
  agent = new Agent();
  dispatcher = agent.compose((dispatch) => (opts, handler) => {
    dispatched.push(String(opts.origin));
    return dispatch(opts, handler);
  });
});

afterEach(async () => {
  await stop();
  await agent.close();
});

function message(over: Partial<AlertMessage> = {}): AlertMessage {
  return {
    alertType: 'ALERT_FAILURE',
    checkAlertId: 'alert-7f3a',
    checkId: 'chk-1',
    checkName: 'Checkout API',
    checkType: 'API',
    runLocation: 'eu-west-1',
    responseTime: 812,
    startedAt: '2026-11-27T19:00:00.000Z',
    errorMessage: 'Expected status 200, got 503',
    checkResultId: 'res-9',
    runUrl: 'https://mon.example.com/runs/res-9',
    ...over,
  };
}

function senders(over: Partial<SenderSettings> = {}): Senders {
  return createSenders(resolveSenderSettings({ timeoutMs: 3000, dispatcher, pagerdutyUrl: receiver.url, opsgenieUrl: { US: `${receiver.url}/us`, EU: `${receiver.url}/eu` }, ...over }));
}

const channel = (type: string, config: Record<string, unknown>): ChannelRecord => ({ id: 3, type, config });
const json = (s: Seen) => JSON.parse(s.body);
const errorOf = (o: SendOutcome) => (o.ok ? '' : o.error);
const textOf = (o: SendOutcome) => (o.ok ? o.result : o.error);

describe('SLACK', () => {
  const token = 'xoxWEBHOOKtoken1234567890';
  const slack = (extra: Record<string, unknown> = {}) => channel('SLACK', { url: `${receiver.url}/services/T0001/B0002/${token}`, ...extra });

  it("posts Slack's message shape (text, blocks, channel) to the incoming webhook; Slack's ok is a success", async () => {
    const outcome = await senders().send(slack({ channel: '#ops' }), message());
    expect(outcome).toEqual({ ok: true, result: 'HTTP 200 ok' });
    const [req] = receiver.seen;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/services/T0001/B0002/${token}`);
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    const body = json(req);
    expect(body.channel).toBe('#ops');
    expect(body.text).toBe('[mac] FAILING: Checkout API');
    expect(Array.isArray(body.blocks)).toBe(true);
    for (const block of body.blocks) expect(['header', 'section']).toContain(block.type);
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'FAILING: Checkout API', emoji: false } });
    const all = JSON.stringify(body.blocks);
    expect(all).toContain('Expected status 200, got 503');
    expect(all).toContain('eu-west-1');
    expect(all).toContain('<https://mon.example.com/runs/res-9|View the run>');
    expect(dispatched).toEqual([receiver.url]);
  });

  it("escapes Slack's control sequences in a check's name (no <!channel> ping) and leaves out channel when not set", async () => {
    await senders().send(slack(), message({ checkName: '<!channel> & <http://evil|click>', errorMessage: 'body was <!here>' }));
    const body = json(receiver.seen[0]);
    expect(body).not.toHaveProperty('channel');
    expect(body.text).toBe('[mac] FAILING: &lt;!channel&gt; &amp; &lt;http://evil|click&gt;');
    // mrkdwn parses <...>; the header is plain_text, which Slack shows as written.
    const mrkdwn = JSON.stringify(body.blocks.filter((b: { type: string }) => b.type !== 'header'));
    expect(body.blocks[0].text.type).toBe('plain_text');
    expect(mrkdwn).not.toContain('<!channel>');
    expect(mrkdwn).not.toContain('<!here>');
    expect(mrkdwn).toContain('body was &lt;!here&gt;');
  });

  it("takes Slack's 404 no_service as final, never showing the webhook's token, and a 500 as worth a retry", async () => {
    receiver.answer = (s) => ({ status: 404, body: `no_service for ${s.path}` });
    const gone = await senders().send(slack(), message());
    expect(gone).toMatchObject({ ok: false, permanent: true });
    expect(errorOf(gone)).toMatch(/^HTTP 404 no_service/);
    expect(errorOf(gone)).not.toContain(token);
    receiver.answer = () => ({ status: 500, body: 'rollup_error' });
    const busy = await senders().send(slack(), message());
    expect(busy).toEqual({ ok: false, error: 'HTTP 500 rollup_error' });
  });
});

describe('PAGERDUTY', () => {
  const key = 'R0UT1NGkey0123456789abcdef012345';
  const pd = channel('PAGERDUTY', { serviceKey: key, serviceName: 'checkout' });

  it('triggers an Events API v2 event keyed by the check alert, and the recovery resolves the same dedup_key', async () => {
    receiver.answer = (s) => ({ status: 202, body: JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: json(s).dedup_key }) });
    const s = senders();
    const trigger = await s.send(pd, message());
    expect(trigger).toEqual({ ok: true, result: 'HTTP 202 {"status":"success","message":"Event processed","dedup_key":"alert-7f3a"}' });
    const resolve = await s.send(pd, message({ alertType: 'ALERT_RECOVERY', errorMessage: null }));
    expect(resolve.ok).toBe(true);
    const [t, r] = receiver.seen;
    expect(t.method).toBe('POST');
    expect(t.path).toBe('/v2/enqueue');
    const event = json(t);
    expect(event).toMatchObject({ routing_key: key, event_action: 'trigger', dedup_key: 'alert-7f3a', client: 'mac', client_url: 'https://mon.example.com/runs/res-9' });
    expect(event.payload).toMatchObject({
      summary: 'FAILING: Checkout API: Expected status 200, got 503',
      source: 'eu-west-1',
      severity: 'critical',
      timestamp: '2026-11-27T19:00:00.000Z',
      component: 'Checkout API',
      group: 'API',
      class: 'ALERT_FAILURE',
      custom_details: { checkId: 'chk-1', errorMessage: 'Expected status 200, got 503', checkResultId: 'res-9' },
    });
    expect(event.links).toEqual([{ href: 'https://mon.example.com/runs/res-9', text: 'The run' }]);
    expect(json(r)).toEqual({ routing_key: key, event_action: 'resolve', dedup_key: 'alert-7f3a' });
    expect(dispatched).toHaveLength(2);
  });

  it('triggers degraded alerts as warnings', async () => {
    receiver.answer = () => ({ status: 202, body: '{}' });
    await senders().send(pd, message({ alertType: 'ALERT_DEGRADED', errorMessage: 'response time 4100 ms over 3000 ms' }));
    expect(json(receiver.seen[0])).toMatchObject({ event_action: 'trigger', payload: { severity: 'warning', class: 'ALERT_DEGRADED' } });
  });

  it('takes 400 as final and never shows the routing key, even when the receiver echoes it', async () => {
    receiver.answer = (s) => ({ status: 400, body: JSON.stringify({ status: 'invalid event', message: 'Event object is invalid', errors: [`bad key ${json(s).routing_key}`] }) });
    const outcome = await senders().send(pd, message());
    expect(outcome).toMatchObject({ ok: false, permanent: true });
    expect(errorOf(outcome)).toContain('invalid event');
    expect(errorOf(outcome)).not.toContain(key);
  });

  it('turns 429 with Retry-After into rateLimited with retryAfterMs, and 500 into a failure worth a retry', async () => {
    receiver.answer = () => ({ status: 429, body: 'slow down', headers: { 'retry-after': '7' } });
    expect(await senders().send(pd, message())).toEqual({ ok: false, error: 'HTTP 429 slow down', rateLimited: true, retryAfterMs: 7000 });
    const now = Date.parse('2026-11-27T19:00:00Z');
    receiver.answer = () => ({ status: 429, body: '', headers: { 'retry-after': 'Fri, 27 Nov 2026 19:00:30 GMT' } });
    expect(await senders({ now: () => now }).send(pd, message())).toMatchObject({ rateLimited: true, retryAfterMs: 30_000 });
    receiver.answer = () => ({ status: 500, body: 'oops' });
    expect(await senders().send(pd, message())).toEqual({ ok: false, error: 'HTTP 500 oops' });
  });

  it('posts under a base URL with a path (a proxy), and fails as final without a service key', async () => {
    receiver.answer = () => ({ status: 202, body: '{}' });
    await senders({ pagerdutyUrl: `${receiver.url}/pd/` }).send(pd, message());
    expect(receiver.seen[0].path).toBe('/pd/v2/enqueue');
    expect(await senders().send(channel('PAGERDUTY', {}), message())).toMatchObject({ ok: false, permanent: true });
  });
});

describe('OPSGENIE', () => {
  const key = 'genie-5f0e8a1c-2b3d-4e5f-8a9b-0c1d2e3f4a5b';

  it('creates an alert with the check alert as alias, GenieKey auth and the priority; the recovery closes it by alias', async () => {
    receiver.answer = () => ({ status: 202, body: '{"result":"Request will be processed","took":0.1,"requestId":"r-1"}' });
    const og = channel('OPSGENIE', { apiKey: key, name: 'ops', region: 'US', priority: 'P1' });
    const s = senders();
    expect(await s.send(og, message())).toEqual({ ok: true, result: 'HTTP 202 {"result":"Request will be processed","took":0.1,"requestId":"r-1"}' });
    expect(await s.send(og, message({ alertType: 'ALERT_RECOVERY', errorMessage: null }))).toMatchObject({ ok: true });
    const [create, close] = receiver.seen;
    expect(create.method).toBe('POST');
    expect(create.path).toBe('/us/v2/alerts');
    expect(create.headers.authorization).toBe(`GenieKey ${key}`);
    const body = json(create);
    expect(body).toMatchObject({ message: 'FAILING: Checkout API', alias: 'alert-7f3a', priority: 'P1', source: 'mac', entity: 'Checkout API', tags: ['mac', 'failing'] });
    expect(body.description).toContain('Expected status 200, got 503');
    expect(Object.values(body.details).every((v) => typeof v === 'string')).toBe(true);
    expect(close.method).toBe('POST');
    expect(close.path).toBe('/us/v2/alerts/alert-7f3a/close');
    expect(close.query.get('identifierType')).toBe('alias');
    expect(close.headers.authorization).toBe(`GenieKey ${key}`);
    expect(json(close)).toMatchObject({ source: 'mac' });
  });

  it('uses the EU endpoint for region EU, P3 by default, and takes 401 as final without showing the key', async () => {
    receiver.answer = (s) => ({ status: 401, body: `{"message":"Key ${String(s.headers.authorization)} is invalid"}` });
    const outcome = await senders().send(channel('OPSGENIE', { apiKey: key, region: 'EU' }), message());
    expect(receiver.seen[0].path).toBe('/eu/v2/alerts');
    expect(json(receiver.seen[0]).priority).toBe('P3');
    expect(outcome).toMatchObject({ ok: false, permanent: true });
    expect(errorOf(outcome)).toContain('HTTP 401');
    expect(errorOf(outcome)).not.toContain(key);
  });
});

describe('SMS and CALL', () => {
  const sid = `AC${'0123456789abcdef'.repeat(2)}`;
  const token = 'twilio-auth-token-9f8e7d6c5b4a';
  const phone = (): PhoneSettings => ({ provider: 'twilio', url: `${receiver.url}/twilio`, accountSid: sid, authToken: token, from: '+15550001111' });

  it("texts through Twilio's Messages.json: basic auth, form-encoded To, From and Body", async () => {
    receiver.answer = () => ({ status: 201, body: '{"sid":"SM1","status":"queued"}' });
    const outcome = await senders({ phone: phone() }).send(channel('SMS', { number: '+15552223333', name: 'on call' }), message());
    expect(outcome).toEqual({ ok: true, result: 'HTTP 201 {"sid":"SM1","status":"queued"}' });
    const [req] = receiver.seen;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/twilio/2010-04-01/Accounts/${sid}/Messages.json`);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Buffer.from(String(req.headers.authorization).replace(/^Basic /, ''), 'base64').toString()).toBe(`${sid}:${token}`);
    const form = new URLSearchParams(req.body);
    expect(form.get('To')).toBe('+15552223333');
    expect(form.get('From')).toBe('+15550001111');
    expect(form.get('Body')).toBe('[mac] FAILING: Checkout API: Expected status 200, got 503');
    expect(dispatched).toHaveLength(1);
  });

  it("calls through Twilio's Calls.json with inline TwiML that says the alert, escaped", async () => {
    receiver.answer = () => ({ status: 201, body: '{"sid":"CA1"}' });
    await senders({ phone: phone() }).send(channel('CALL', { number: '+15552223333', name: 'on call' }), message({ checkName: 'A & <B>' }));
    const [req] = receiver.seen;
    expect(req.path).toBe(`/twilio/2010-04-01/Accounts/${sid}/Calls.json`);
    const form = new URLSearchParams(req.body);
    expect(form.get('To')).toBe('+15552223333');
    expect(form.get('Twiml')).toBe('<Response><Say>Alert from mac. The check A &amp; &lt;B&gt; is failing. Expected status 200, got 503</Say></Response>');
  });

  it('fails as final without a provider or with a number that is not E.164; Twilio 400 is final and the token never shows', async () => {
    expect(await senders().send(channel('SMS', { number: '+15552223333', name: 'x' }), message())).toEqual({
      ok: false,
      permanent: true,
      error: 'no phone provider is configured for SMS and CALL channels (mac serve --phone-provider twilio ...)',
    });
    expect(await senders({ phone: phone() }).send(channel('CALL', { number: '555-1234', name: 'x' }), message())).toMatchObject({ ok: false, permanent: true });
    expect(receiver.seen).toHaveLength(0);
    receiver.answer = (s) => ({ status: 400, body: `{"code":21211,"message":"Invalid 'To'","auth":"${String(s.headers.authorization)}","token":"${token}"}` });
    const bad = await senders({ phone: phone() }).send(channel('SMS', { number: '+15552223333', name: 'x' }), message());
    expect(bad).toMatchObject({ ok: false, permanent: true });
    expect(errorOf(bad)).toContain('21211');
    expect(errorOf(bad)).not.toContain(token);
    expect(errorOf(bad)).not.toContain(Buffer.from(`${sid}:${token}`).toString('base64'));
  });
});

describe('WEBHOOK', () => {
  it('sends the JSON payload with the channel method, headers and query parameters', async () => {
    const hook = channel('WEBHOOK', { name: 'h', url: `${receiver.url}/hook?team=a`, method: 'PUT', headers: [{ key: 'X-Token', value: 'tok-123456' }], queryParameters: [{ key: 'env', value: 'prod' }] });
    expect(await senders().send(hook, message())).toEqual({ ok: true, result: 'HTTP 200 ok' });
    const [req] = receiver.seen;
    expect(req.method).toBe('PUT');
    expect(req.path).toBe('/hook');
    expect(Object.fromEntries(req.query)).toEqual({ team: 'a', env: 'prod' });
    expect(req.headers['x-token']).toBe('tok-123456');
    expect(json(req)).toEqual({
      alertType: 'ALERT_FAILURE',
      checkId: 'chk-1',
      checkName: 'Checkout API',
      checkType: 'API',
      runLocation: 'eu-west-1',
      responseTime: 812,
      startedAt: '2026-11-27T19:00:00.000Z',
      errorMessage: 'Expected status 200, got 503',
    });
    expect(dispatched).toEqual([receiver.url]);
  });

  it('renders a template with the variables, as text', async () => {
    const hook = channel('WEBHOOK', { name: 'h', url: `${receiver.url}/t`, template: '{"t":"{{ALERT_TYPE}} {{CHECK_NAME}} at {{RUN_LOCATION}}: {{ERROR_MESSAGE}} {{RUN_URL}} {{NOPE}}"}' });
    await senders().send(hook, message());
    expect(receiver.seen[0].body).toBe('{"t":"ALERT_FAILURE Checkout API at eu-west-1: Expected status 200, got 503 https://mon.example.com/runs/res-9 "}');
    expect(receiver.seen[0].headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('never shows header values, query secrets or URL credentials, even when the receiver echoes the request', async () => {
    receiver.answer = (s) => ({ status: 500, body: `saw ${s.path}?${s.query.toString()} ${JSON.stringify(s.headers)}` });
    const hook = channel('WEBHOOK', {
      name: 'h',
      url: `${receiver.url.replace('//', '//user:urlpass99@')}/h?token=qs-secret-77`,
      headers: [{ key: 'Authorization', value: 'Bearer hdr-secret-88' }],
      queryParameters: [{ key: 'sig', value: 'param-secret-66' }],
    });
    const outcome = await senders().send(hook, message());
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome).not.toHaveProperty('permanent');
    for (const secret of ['urlpass99', 'qs-secret-77', 'hdr-secret-88', 'param-secret-66']) expect(errorOf(outcome)).not.toContain(secret);
    // The configured Authorization header wins over the URL's user info.
    expect(receiver.seen[0].headers.authorization).toBe('Bearer hdr-secret-88');
    expect(errorOf(outcome)).toContain('HTTP 500 saw /h');
  });

  it("sends a URL's user info as basic auth, never shown", async () => {
    receiver.answer = (s) => ({ status: 401, body: `who is ${String(s.headers.authorization)}?` });
    const outcome = await senders().send(channel('WEBHOOK', { name: 'h', url: receiver.url.replace('//', '//bot:p%40ss-word-1@') + '/h' }), message());
    expect(receiver.seen[0].headers.authorization).toBe(`Basic ${Buffer.from('bot:p@ss-word-1').toString('base64')}`);
    expect(outcome).toEqual({ ok: false, error: 'HTTP 401 who is Basic ***?' });
  });

  it('takes 410 as final and 404 as worth a retry (a receiver being deployed)', async () => {
    receiver.answer = () => ({ status: 410, body: 'gone' });
    const hook = channel('WEBHOOK', { name: 'h', url: `${receiver.url}/h` });
    expect(await senders().send(hook, message())).toEqual({ ok: false, permanent: true, error: 'HTTP 410 gone' });
    receiver.answer = () => ({ status: 404, body: '' });
    expect(await senders().send(hook, message())).toEqual({ ok: false, error: 'HTTP 404' });
  });

  it('refuses a URL that is not http(s) as final, without a request', async () => {
    for (const url of ['file:///etc/passwd', 'not a url', 'ftp://127.0.0.1/x']) {
      expect(await senders().send(channel('WEBHOOK', { name: 'h', url }), message())).toMatchObject({ ok: false, permanent: true });
    }
    expect(await senders().send(channel('WEBHOOK', { name: 'h', url: `${receiver.url}/h`, headers: [{ key: 'X-A', value: 'a\r\nX-B: b' }] }), message())).toMatchObject({ ok: false, permanent: true });
    expect(receiver.seen).toHaveLength(0);
  });
});

describe('bounds', () => {
  it('gives up on a receiver that never answers within the timeout', async () => {
    receiver.answer = () => 'hang';
    const started = Date.now();
    const outcome = await senders({ timeoutMs: 400 }).send(channel('WEBHOOK', { name: 'h', url: `${receiver.url}/slow` }), message());
    const took = Date.now() - started;
    expect(outcome).toEqual({ ok: false, error: 'no answer within 400 ms' });
    expect(took).toBeGreaterThanOrEqual(380);
    expect(took).toBeLessThan(2000);
  });

  it('takes a 2xx whose body never ends as accepted (its status is the verdict), within the timeout', async () => {
    receiver.answer = () => 'trickle';
    const started = Date.now();
    const outcome = await senders({ timeoutMs: 400 }).send(channel('WEBHOOK', { name: 'h', url: `${receiver.url}/slow` }), message());
    const took = Date.now() - started;
    expect(outcome.ok).toBe(true);
    expect(textOf(outcome)).toMatch(/^HTTP 200 \.+ \(the rest of the answer did not come within 400 ms\)$/);
    expect(took).toBeLessThan(2000);
  });

  it('keeps a bounded part of a large answer, on one line', async () => {
    receiver.answer = () => ({ status: 200, body: `line one\nline two\n${'x'.repeat(5 * 1024 * 1024)}` });
    const outcome = await senders().send(channel('WEBHOOK', { name: 'h', url: `${receiver.url}/big` }), message());
    expect(outcome.ok).toBe(true);
    expect(textOf(outcome).length).toBeLessThanOrEqual(MAX_OUTCOME_CHARS);
    expect(textOf(outcome)).toMatch(/^HTTP 200 line one line two x+…$/);
  });

  it('fails, worth a retry, when nothing listens, and as final for a channel type it does not know', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const outcome = await senders().send(channel('SLACK', { url: `http://127.0.0.1:${port}/services/x` }), message());
    expect(outcome).toEqual({ ok: false, error: `connect ECONNREFUSED 127.0.0.1:${port}` });
    expect(await senders().send(channel('CARRIER_PIGEON', {}), message())).toMatchObject({ ok: false, permanent: true });
  });
});
