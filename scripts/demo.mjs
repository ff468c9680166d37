// `npm run demo`: start a local "shop" on 127.0.0.1 (scripts/lib/demo-shop.mjs) and `mac serve`
// on a free port, apply examples/, plan again to show that nothing is left to change, point the
// checks at the local shop through the API (examples/ names a real shop's hosts, which are never
// called), restart the service with its scheduled runs, run every check once and ping the
// heartbeat, add an incident, and print the URLs of the public pages (the status page and
// examples/dashboards.yaml's dashboard), which then show real results. Then everything stops, or
// keeps running until Ctrl-C with `npm run demo -- --keep`. Exits non-zero if any step or check fails.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startShop } from './lib/demo-shop.mjs';

const MAC = fileURLToPath(new URL('../bin/mac.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = 'examples';
// The examples' one secret variable reads its value from here; any value works locally.
const DEMO_ENV = { SHOP_STRIPE_KEY: 'sk_test_demo_only' };

const say = (line) => process.stdout.write(`${line}\n`);
const KEEP = process.argv.slice(2).includes('--keep');

/** One API call of the demo; throws on an error status. */
async function api(base, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: 'Bearer mac-dev-key', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * One resolved incident of the shop's status page (examples/status-page.yaml), for its history
 * bar: incidents are events, opened by people or by checks, never definitions.
 */
async function addIncident(base) {
  const { entries } = await api(base, 'GET', '/v1/status-pages/services?limit=100');
  const checkout = entries.find((s) => s.name === 'Checkout');
  const day = 86_400_000;
  const at = (ms) => new Date(Date.now() - ms).toISOString();
  const incident = await api(base, 'POST', '/v1/status-pages/incidents', {
    name: 'Slow checkout',
    severity: 'MEDIUM',
    services: [{ id: checkout.id }],
    incidentUpdates: [{ description: 'Checkout pages load slowly; we are investigating.', publicIncidentUpdateDate: at(3 * day) }],
  });
  await api(base, 'POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, {
    description: 'A slow database query was fixed; checkout is fast again.',
    status: 'RESOLVED',
    publicIncidentUpdateDate: at(3 * day - 2 * 3_600_000),
  });
}

/** The checks of the account, by logical name as examples/ names them. */
async function checksByName(base) {
  const checks = await api(base, 'GET', '/v1/checks?limit=100');
  return new Map(checks.map((c) => [c.name, c]));
}

/**
 * Points the applied examples at the demo's local shop (scripts/lib/demo-shop.mjs) through the
 * API: the examples name the hosts a real shop has (www.shop.example, db-primary.shop.internal,
 * api.stripe.com, ...), which this machine cannot and must not reach. Only the targets change:
 * URLs, hosts and ports, the DNS checks' name server, the account variable the checkout script
 * reads its base URL from, the status-page check's service URL and the alert webhooks (the
 * shop's sink counts them). Returns the lines that say what went where.
 */
async function pointAtShop(base, shop) {
  const web = `http://${shop.host}:${shop.web}`;
  const checks = await checksByName(base);
  const said = [];
  const put = async (name, path, body, where) => {
    const check = checks.get(name);
    if (!check) throw new Error(`the check "${name}" of examples/ was not applied`);
    await api(base, 'PUT', `${path}/${check.id}`, body);
    said.push(`${name} -> ${where}`);
  };
  const withRequest = (name, request) => ({ request: { ...checks.get(name)?.request, ...request } });
  await put('Shop home page answers', '/v1/checks/url', withRequest('Shop home page answers', { url: `${web}/` }), `${web}/`);
  await put('Catalog API lists products', '/v1/checks/api', withRequest('Catalog API lists products', { url: `${web}/v1/products` }), `${web}/v1/products`);
  const tcp = [
    ['Primary database reachable', shop.tcp.primary],
    ['Read replica reachable', shop.tcp.replica],
    ['Redis cache answers PING', shop.tcp.redis],
    ['Payment provider API reachable', shop.tcp.payments],
    ['Payment webhook receiver reachable', shop.tcp.webhooks],
  ];
  for (const [name, port] of tcp) await put(name, '/v1/checks/tcp', withRequest(name, { hostname: shop.host, port }), `${shop.host}:${port}`);
  for (const name of ['www.shop.example resolves', 'Shop mail exchanger published']) {
    // The DNS check's PUT wants its name besides the changed request.
    await put(name, '/v1/checks/dns', { name, ...withRequest(name, { nameServer: shop.host, port: shop.dns }) }, `name server ${shop.host}:${shop.dns}`);
  }
  await put('Shop gateway answers pings', '/v1/checks/icmp', withRequest('Shop gateway answers pings', { hostname: shop.host }), shop.host);
  await put('Public status pages answer', '/v1/checks/multistep', { environmentVariables: [{ key: 'STATUS_URL', value: base }] }, `${base} (STATUS_URL)`);
  // The checkout script reads its base URL from SHOP_API_URL: the account variable of
  // examples/variables.yaml, given to the check itself here (mac serve passes a script its
  // check's variables).
  const checkout = 'Checkout flow (browse, cart, pay)';
  const own = (checks.get(checkout)?.environmentVariables ?? []).filter((v) => v.key !== 'SHOP_API_URL');
  await put(checkout, '/v1/checks/multistep', { environmentVariables: [...own, { key: 'SHOP_API_URL', value: web }] }, `${web} (SHOP_API_URL)`);
  // Alert webhooks go to the shop's sink; the email channel has no mail server here, so its
  // sends fail saying so (mac serve --smtp would deliver them).
  for (const channel of await api(base, 'GET', '/v1/alert-channels?limit=100')) {
    if (channel.type !== 'WEBHOOK' && channel.type !== 'SLACK') continue;
    // Subscriptions stay as they are when left out of the PUT.
    const { id, subscriptions: _s, created_at: _c, updated_at: _u, createdAt: _ca, updatedAt: _ua, ...rest } = channel;
    const url = `${web}/hooks/${channel.type.toLowerCase()}`;
    await api(base, 'PUT', `/v1/alert-channels/${id}`, { ...rest, config: { ...channel.config, url } });
    said.push(`alert channel ${channel.type} -> ${url}`);
  }
  return said;
}

/**
 * Runs every check once now (the schedule would take up to an hour to reach them all) and waits
 * for the sessions; pings the nightly backup's heartbeat as the backup job would. Returns the
 * checks' results: {name, type, status, ms, error}.
 */
async function runAllChecks(base) {
  const checks = await api(base, 'GET', '/v1/checks?limit=100');
  const heartbeat = checks.find((c) => c.checkType === 'HEARTBEAT');
  if (heartbeat?.heartbeat?.pingToken) {
    const res = await fetch(`${base}/ping/${heartbeat.heartbeat.pingToken}`, { method: 'POST' });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`the heartbeat ping answered ${res.status}`);
  }
  const { sessions } = await api(base, 'POST', '/v1/check-sessions/trigger', {});
  const end = Date.now() + 180_000;
  const results = [];
  const pending = new Map(sessions.map((s) => [s.checkSessionId, s]));
  while (pending.size > 0) {
    for (const id of [...pending.keys()]) {
      const session = await api(base, 'GET', `/v1/check-sessions/${id}`);
      if (!['PASSED', 'FAILED', 'DEGRADED', 'TIMED_OUT'].includes(session.status)) continue;
      pending.delete(id);
      const check = checks.find((c) => c.id === session.checkId);
      const [last] = check ? await api(base, 'GET', `/v1/check-results/${check.id}?limit=1`) : [];
      const assertion = last?.apiCheckResult?.assertions?.find((a) => a.passed === false);
      const failedAssertion = assertion && `${assertion.source}${assertion.property ? ` ${assertion.property}` : ''} ${assertion.comparison} ${assertion.target ?? ''}: got ${assertion.actual}`;
      const error = last?.apiCheckResult?.requestError ?? failedAssertion ?? last?.multiStepCheckResult?.errors?.[0] ?? last?.browserCheckResult?.errors?.[0];
      // Failed only for being slower than maxResponseTime: the machine's load, not the shop.
      const slow = !error && last?.overMaxResponseTime === true;
      const why = error ?? (slow ? `response time ${last.responseTime} ms is over the check's maxResponseTime` : undefined);
      results.push({ name: check?.name ?? session.checkId, type: check?.checkType, status: session.status, ms: session.timeElapsed, error: why, slow, jobLog: last?.multiStepCheckResult?.jobLog });
    }
    if (pending.size === 0) break;
    if (Date.now() > end) throw new Error(`${pending.size} check session(s) did not finish within 180 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (heartbeat) results.push({ name: heartbeat.name, type: 'HEARTBEAT', status: 'PINGED', ms: 0 });
  return results.sort((a, b) => a.name.localeCompare(b.name));
}

/** Starts `mac serve` (`args` added) and resolves once it prints its URL. */
function startService(args) {
  const child = spawn(process.execPath, [MAC, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mac serve did not start within 30 s:\n${out}`));
    }, 30_000);
    const onData = (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // Its event lines (state changes, alerts) from now on are not the demo's output.
      child.stdout.removeAllListeners('data').resume();
      child.stderr.removeAllListeners('data').resume();
      resolve({ url: m[1], pid: child.pid, child, exited: new Promise((r) => child.once('exit', r)) });
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mac serve exited with ${code} before listening:\n${out}`));
    });
  });
}

/**
 * Runs one mac command showing its results (stdout); its stderr (the planned diff and one progress
 * line per change) is shown only when the command fails, to keep the demo readable.
 */
function run(args, env) {
  say(`\n$ mac ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAC, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const exit = code ?? (signal ? 1 : 0);
      if (exit !== 0 && exit !== 2) process.stderr.write(stderr);
      resolve(exit);
    });
  });
}

/** Stops a service started by startService (by its pid) and waits for its exit. */
async function stopService(service) {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
  await service.exited;
  say(`stopped mac serve (pid ${service.pid})`);
}

async function main() {
  say('mac demo: monitoring as code against a local monitoring API, watching a local shop');
  const dir = await mkdtemp(join(tmpdir(), 'mac-demo-'));
  const state = join(dir, 'state.db');
  const shop = await startShop();
  say(`started the demo shop on ${shop.host}: web ${shop.web}, DNS ${shop.dns}, TCP ${Object.values(shop.tcp).join(', ')}`);
  let service;
  try {
    // First without runs: examples/ names the hosts of a real shop, which the checks must not
    // reach; they are pointed at the local shop before the service runs anything.
    service = await startService(['--port', '0', '--no-runs', '--state', state]);
    say(`started mac serve (pid ${service.pid}) on ${service.url}, not running checks yet`);
    const env = { MAC_API_URL: service.url, MAC_API_KEY: 'mac-dev-key', ...DEMO_ENV };
    const steps = [
      { what: 'apply examples/ to the empty account', args: ['apply', EXAMPLES, '--yes'] },
      { what: 'plan again: the account matches the definitions', args: ['plan', EXAMPLES, '--detailed-exitcode'] },
    ];
    for (const step of steps) {
      say(`\n== ${step.what}`);
      const code = await run(step.args, env);
      if (code !== 0) {
        say(`\ndemo failed: \`mac ${step.args.join(' ')}\` exited with ${code}`);
        return code === 2 ? 1 : code || 1;
      }
    }
    say('\n== point the checks at the demo shop (examples/ names a real shop\'s hosts; a plan now would show these as drift)');
    for (const line of await pointAtShop(service.url, shop)) say(`  ${line}`);
    const port = new URL(service.url).port;
    await stopService(service);
    service = undefined;
    service = await startService(['--port', port, '--state', state]);
    say(`started mac serve (pid ${service.pid}) on ${service.url} again, running the checks on their schedules`);

    say('\n== run every check once now, and ping the nightly backup heartbeat');
    const results = await runAllChecks(service.url);
    const width = Math.max(...results.map((r) => r.name.length));
    for (const r of results) say(`  ${r.name.padEnd(width)}  ${(r.type ?? '').padEnd(10)} ${r.status.padEnd(8)}${r.type === 'HEARTBEAT' ? '' : ` ${r.ms} ms`}${r.error ? `  ${r.error}` : ''}`);
    // DEGRADED is a pass that was slower than the check's degradedResponseTime (on a busy
    // machine even a local connection can be); FAILED and TIMED_OUT fail the demo.
    // A check that failed only for its time (over maxResponseTime) is shown, not a demo failure.
    const failed = results.filter((r) => (r.status === 'FAILED' || r.status === 'TIMED_OUT') && !r.slow);
    const degraded = results.filter((r) => r.status === 'DEGRADED' || r.slow);
    if (degraded.length > 0) say(`  (DEGRADED, or FAILED over maxResponseTime: the check got its answer, slower than its thresholds; this machine is busy)`);
    for (const r of failed) for (const line of r.jobLog ?? []) say(`    ${r.name}: ${line}`);

    say('\n== public pages (no API key needed)');
    await addIncident(service.url);
    say(`status page: ${service.url}/status/shop`);
    say(`dashboard:   ${service.url}/dashboards/shop-status`);
    if (failed.length > 0) {
      say(`\ndemo failed: ${failed.map((r) => `${r.name} ${r.status}`).join(', ')}`);
      return 1;
    }
    say(`\ndemo done: examples/ applied, a second plan shows no changes, and the ${results.length - 1} checks that run got their answers from the demo shop${degraded.length > 0 ? ` (${degraded.length} slower than their thresholds)` : ''}; the heartbeat got its ping.`);
    if (KEEP) {
      say(`mac serve keeps running on ${service.url}, its checks on their schedules; press Ctrl-C to stop it.`);
      await new Promise((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
    return 0;
  } finally {
    // Ctrl-C reaches the service too (same process group); it may have stopped already.
    if (service) await stopService(service);
    await shop.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
