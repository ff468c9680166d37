import { request } from 'node:http';
import { createHash } from 'node:crypto';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOk, callApi, startServe, type Served } from '../helpers/serve.js';
import { startTcpServer, type TcpServer } from '../helpers/tcp-server.js';
import { openIncident, resolveIncident, runOnce, statusPageWith, tcpCheck } from './pages-fixtures.js';

// The public pages over HTTP, without a browser: status codes, escaping, keys, headers.
let s: Served;
let beta: Served;
let tcp: TcpServer;

beforeAll(async () => {
  tcp = await startTcpServer({ banner: '+OK\r\n' });
  s = await startServe(['--no-runs', '--api-key', 'acme-key', '--account', 'acme', '--api-key', 'beta-key', '--account', 'beta', '--rate-limit', '0/60']);
  beta = { ...s, apiKey: 'beta-key', accountId: 'beta' };
});
afterAll(async () => {
  await s?.stop();
  await tcp?.close();
});

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${s.url}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** A GET over HTTP as it is on the wire (no decoding of its body). */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A GET with a chosen Host header (fetch does not let a caller set Host). */
function getAs(host: string, path: string): Promise<{ status: number; text: string; type: string }> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text, type: String(res.headers['content-type']) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('status page over HTTP', () => {
  it('answers without an API key, escapes incident text, sends a CSP without inline scripts', async () => {
    const { service } = await statusPageWith(s, 'shop', { logo: 'javascript:alert(1)', redirectTo: 'https://shop.example/', favicon: 'https://shop.example/f.ico' });
    const incident = await openIncident(s, service.id, 'Checkout <b>down</b>', 'We are <script>window.pwned=1</script> on it');
    await apiOk(s, 'POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'Second update', status: 'IDENTIFIED' });
    const res = await get('/status/shop');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
    // Styles only by the hashes of this page's own <style> elements; there is no inline <script> at all.
    const allowed = /style-src ([^;]+)/.exec(policy)![1].split(' ');
    const styles = [...res.text.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`);
    expect(styles.length).toBeGreaterThan(0);
    expect(allowed).toEqual(styles);
    expect(res.text).not.toMatch(/<script(?![^>]*\ssrc="\/_mac\/pages\.js")/);
    expect(res.text).toContain('We are &lt;script&gt;window.pwned=1&lt;/script&gt; on it');
    expect(res.text).toContain('Checkout &lt;b&gt;down&lt;/b&gt;');
    expect(res.text).not.toContain('javascript:');
    expect(res.text).toContain('<a href="https://shop.example/">');
    expect(res.text).toContain('<link rel="icon" href="https://shop.example/f.ico">');
    expect(res.text).toMatch(/Partial outage/);
    // Updates newest first.
    expect(res.text.indexOf('Second update')).toBeLessThan(res.text.indexOf('We are'));
    // Landmarks and headings.
    for (const tag of ['<header', '<main id="main">', '<nav', '<h1>', '<h2 id="services-h">']) expect(res.text).toContain(tag);

    const live = await get('/status/shop/live');
    expect(live.status).toBe(200);
    expect(live.text.startsWith('<div id="live">')).toBe(true);
    expect(live.text).not.toContain('<html');
    expect(live.text).toContain('We are &lt;script&gt;window.pwned=1&lt;/script&gt; on it');
    await resolveIncident(s, incident.id);
    const after = await get('/status/shop');
    expect(after.text).toContain('All systems operational');
    expect(after.text).toMatch(/<h2 id="past-h">Past incidents<\/h2>\s*<article class="card incident"/);
  });

  it('serves an Atom feed of the incidents, escaped', async () => {
    const { service } = await statusPageWith(s, 'feed-page');
    await openIncident(s, service.id, 'Feed <incident>', 'a & b');
    const res = await get('/status/feed-page/feed.atom');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(res.text).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(res.text).toContain('<title>Feed &lt;incident&gt; (open, major)</title>');
    expect(res.text).toContain('a &amp; b');
  });

  it('answers a plain 404 page for unknown pages, paths and bad encodings', async () => {
    for (const path of ['/status/nope', '/status/shop/nope', '/status/%E0%A4%A', '/dashboards/nope']) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('Page not found');
    }
    // A link token that is not one: refused, on a page that exists.
    const bad = await get('/status/shop/unsubscribe/not-a-sub');
    expect([bad.status, bad.text.includes('Invalid link')]).toEqual([400, true]);
  });

  it('serves a page at / when Host is its custom domain; other hosts still reach the API', async () => {
    await statusPageWith(s, 'domain-page', { customDomain: 'status.acme.test' });
    const page = await getAs('status.acme.test', '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>domain-page status</h1>');
    expect((await getAs('STATUS.acme.test:8080', '/feed.atom')).status).toBe(200);
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'Domain dashboard', customUrl: 'domain-dash', customDomain: 'dash.acme.test' });
    expect((await getAs('dash.acme.test', '/')).text).toContain('<h1>Domain dashboard</h1>');
    const api = await getAs('other.test', '/');
    expect(api.status).toBe(401);
    expect(api.type).toContain('application/json');
  });

  it('the subscribe form creates a pending subscription the API lists, and answers the same for a known address', async () => {
    const { page } = await statusPageWith(s, 'subs');
    const post = (email: string) =>
      fetch(`${s.url}/status/subs/subscriptions`, { method: 'POST', body: new URLSearchParams({ email }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const made = await post('Ann@Example.com');
    expect(made.status).toBe(200);
    const text = await made.text();
    expect(text).toContain('Check your inbox to confirm');
    // Nothing of the subscription is on the page: its links travel by mail only.
    expect(text).not.toMatch(/unsubscribe\/|confirm\//);
    const again = await post('ann@example.com');
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(text);
    expect((await post('<script>x</script>')).status).toBe(400);
    expect((await post(`${'a'.repeat(5000)}@example.com`)).status).toBe(413);
    const subs = await apiOk(s, 'GET', `/v1/status-pages/${page.id}/subscriptions`);
    expect(subs.map((x: any) => [x.address, x.status])).toEqual([['Ann@Example.com', 'PENDING']]);
    // The bulk endpoint shares the rule: the same address (any case) is skipped.
    expect(await apiOk(s, 'POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'ANN@example.com' }] })).toMatchObject({ created: 0, skipped: 1 });
    expect((await apiOk(s, 'GET', `/v1/status-pages/${page.id}/subscriptions`)).length).toBe(1);
    const gone = await fetch(`${s.url}/status/subs/unsubscribe/${subs[0].id}`, { method: 'POST' });
    // A subscription's id is no unsubscribe link (anyone who saw it could end it).
    expect(gone.status).toBe(400);
    expect((await apiOk(s, 'GET', `/v1/status-pages/${page.id}/subscriptions`)).length).toBe(1);
  });
});

describe('dashboard over HTTP', () => {
  it('selects checks by tags (OR, AND, all), of its own account only, with state from the latest result', async () => {
    const api = await tcpCheck(s, 'api <check>', ['api', 'prod'], tcp.port);
    await tcpCheck(s, 'web', ['web', 'prod'], tcp.port);
    await tcpCheck(s, 'db', ['db'], 1);
    await tcpCheck(beta, 'beta secret check', ['api', 'prod'], tcp.port);
    await runOnce(s, api.id);
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'Or', customUrl: 'or-dash', tags: ['api', 'db'] });
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'And', customUrl: 'and-dash', tags: ['api', 'prod'], useTagsAndOperator: true, hideTags: true, showP99: false });
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'All', customUrl: 'all-dash' });
    const names = (text: string) => [...text.matchAll(/<li class="check"[^>]*>\s*<h3>(?:<a [^>]*>)?([^<]*)(?:<\/a>)?<\/h3>/g)].map((m) => m[1]);
    const or = await get('/dashboards/or-dash');
    expect(or.status).toBe(200);
    expect(names(or.text)).toEqual(['api &lt;check&gt;', 'db']);
    const and = await get('/dashboards/and-dash');
    expect(names(and.text)).toEqual(['api &lt;check&gt;']);
    expect(and.text).toContain('<p class="state s-passing"><span aria-hidden="true">✓ </span>Passing</p>');
    expect(and.text).toContain('<dt>Availability (24 h)</dt><dd>100.00 %</dd>');
    expect(and.text).toContain('<dt>p95</dt>');
    expect(and.text).not.toContain('<dt>p99</dt>');
    expect(and.text).not.toContain('class="tags"');
    const all = await get('/dashboards/all-dash');
    expect(names(all.text)).toEqual(['api &lt;check&gt;', 'db', 'web']);
    expect(all.text).toContain('No data');
    expect(all.text).not.toContain('beta secret check');
    const data = (await (await fetch(`${s.url}/dashboards/all-dash/data.json`)).json()) as any;
    expect(data.checks.map((c: any) => [c.name, c.state])).toEqual([['api <check>', 'passing'], ['db', 'no-data'], ['web', 'no-data']]);
    expect(JSON.stringify(data)).not.toMatch(/beta|dashboardId|keys|hostname|127\.0\.0\.1/);
  });

  it('keeps customCSS inside its <style> and escapes the header', async () => {
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'H </title><script>x()</script>', customUrl: 'css-dash', enableIncidents: true, customCSS: 'h1{color:#123456}</style><script>window.pwned=1</script>' });
    const res = await get('/dashboards/css-dash');
    const custom = /<style id="custom-css">([\s\S]*?)<\/style>/.exec(res.text)![1];
    expect(custom).toBe('h1{color:#123456}\\3c /style>\\3c script>window.pwned=1\\3c /script>');
    expect(res.text).toContain('<title>H &lt;/title&gt;&lt;script&gt;x()&lt;/script&gt;</title>');
    expect(res.text.match(/<script/g)).toHaveLength(1);
    // enableIncidents: the account's open incidents, escaped (the feed test left one open).
    expect(res.text).toContain('<ul class="plain" id="incidents">');
    expect(res.text).toContain('<h3>Feed &lt;incident&gt;</h3>');
    expect((await get('/dashboards/all-dash')).text).not.toContain('id="incidents"');
  });

  it('a private dashboard: 401 without its key, the same 401 for a wrong key whether or not it exists, 200 with it', async () => {
    const made = await apiOk(s, 'POST', '/v1/dashboards', { header: 'Private', customUrl: 'private-dash', isPrivate: true });
    const key = made.keys[0].rawKey as string;
    // The key's hash is never shown by the API.
    expect(JSON.stringify(await apiOk(s, 'GET', `/v1/dashboards/${made.dashboardId}`))).not.toContain('keyHash');
    const refused = await get('/dashboards/private-dash');
    expect(refused.status).toBe(401);
    expect(refused.text).not.toContain('Private</h1>');
    const wrongHere = await get('/dashboards/private-dash?key=dk_00000000000000000000000000000000');
    const wrongNowhere = await get('/dashboards/no-such-dash?key=dk_00000000000000000000000000000000');
    expect([wrongHere.status, wrongNowhere.status]).toEqual([401, 401]);
    expect(wrongHere.text).toBe(wrongNowhere.text);
    expect(String(wrongHere.headers.get('www-authenticate'))).toBe(String(wrongNowhere.headers.get('www-authenticate')));
    // An API key is not a dashboard key.
    expect((await get('/dashboards/private-dash', { authorization: 'Bearer acme-key' })).status).toBe(401);
    expect((await get('/dashboards/private-dash/data.json')).status).toBe(401);
    const byQuery = await get(`/dashboards/private-dash?key=${key}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.text).toContain('<h1>Private</h1>');
    expect(byQuery.text).toContain(`data-src="/dashboards/private-dash/live?key=${key}"`);
    expect((await get('/dashboards/private-dash/live')).status).toBe(401);
    expect((await get(`/dashboards/private-dash/live?key=${key}`)).status).toBe(200);
    expect((await get('/dashboards/private-dash', { authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await get(`/dashboards/private-dash/data.json?key=${key}`)).status).toBe(200);
    // A key of one private dashboard opens no other.
    const other = await apiOk(s, 'POST', '/v1/dashboards', { header: 'Other', customUrl: 'other-private', isPrivate: true });
    expect(other.keys[0].rawKey).not.toBe(key);
    expect((await get(`/dashboards/other-private?key=${key}`)).status).toBe(401);
  });

  it('check-run links open a summary page only for results of the dashboard’s own checks', async () => {
    const check = await tcpCheck(s, 'linked', ['linked'], tcp.port);
    const hidden = await tcpCheck(s, 'not on it', ['elsewhere'], tcp.port);
    await runOnce(s, check.id);
    await runOnce(s, hidden.id);
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'Runs', customUrl: 'runs-dash', tags: ['linked'], showCheckRunLinks: true, expandChecks: true });
    const page = await get('/dashboards/runs-dash');
    expect(page.text).toContain('<details open>');
    const href = /href="(\/dashboards\/runs-dash\/runs\/[^"]+)"/.exec(page.text)![1];
    const run = await get(href);
    expect(run.status).toBe(200);
    expect(run.text).toContain('<h1>linked</h1>');
    const otherResult = (await apiOk(s, 'GET', `/v1/check-results/${hidden.id}`))[0];
    expect((await get(`/dashboards/runs-dash/runs/${otherResult.id}`)).status).toBe(404);
    expect((await get(`/dashboards/all-dash`)).text).not.toContain('/runs/');
  });

  it('sends a shared page over HTTP compressed as the client accepts, and 304 to a client that holds it', async () => {
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'Wire', customUrl: 'wire-dash' });
    const plain = await raw('/dashboards/wire-dash', {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const etag = String(plain.headers.etag);
    // Compressed once, in the background, after the page was built: asked again until it is.
    let br = await raw('/dashboards/wire-dash', { 'accept-encoding': 'br' });
    for (let i = 0; i < 200 && br.headers['content-encoding'] !== 'br'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      br = await raw('/dashboards/wire-dash', { 'accept-encoding': 'br' });
    }
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('accept-encoding');
    // Within the cache time: the same page, so the same bytes once decoded.
    if (String(br.headers.etag).replace(/-br"$/, '"') === etag) expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    const held = await raw('/dashboards/wire-dash', { 'if-none-match': String(br.headers.etag), 'accept-encoding': 'br' });
    if (String(br.headers.etag).replace(/-br"$/, '"') === etag) {
      expect(held.status).toBe(304);
      expect(held.body.length).toBe(0);
    }
  });

  it('serves its script as a file with a JavaScript type', async () => {
    const res = await get('/_mac/pages.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.text).toContain('data-mac-dashboard');
    expect((await callApi(s, 'GET', '/v1/dashboards')).status).toBe(200);
  });
});
