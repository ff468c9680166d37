// `npm run demo`: start `mac serve` on a free port, apply examples/, plan again to show that
// nothing is left to change, run the multi-step check of examples/ through the service, add an
// incident, print the URLs of the public pages (the status page and examples/dashboards.yaml's
// dashboard), then stop the service, or keep it running until Ctrl-C with `npm run demo -- --keep`. Exits non-zero if any step fails.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

/**
 * Runs examples/checks/status-page.yaml's multi-step check once through the service: it points
 * at mac serve's default port, so the demo first points it at its own service, then triggers
 * it and waits for the session. Returns the session's status.
 */
async function runStatusCheck(base) {
  const checks = await api(base, 'GET', '/v1/checks?limit=100');
  const check = checks.find((c) => c.checkType === 'MULTI_STEP' && c.name === 'Public status pages answer');
  if (!check) throw new Error('the multi-step check of examples/checks/status-page.yaml was not applied');
  await api(base, 'PUT', `/v1/checks/multistep/${check.id}`, { environmentVariables: [{ key: 'STATUS_URL', value: base }] });
  const { sessions } = await api(base, 'POST', '/v1/check-sessions/trigger', { target: { checkId: [check.id] } });
  const end = Date.now() + 120_000;
  for (;;) {
    const session = await api(base, 'GET', `/v1/check-sessions/${sessions[0].checkSessionId}`);
    if (['PASSED', 'FAILED', 'DEGRADED', 'TIMED_OUT'].includes(session.status)) {
      const [final] = await api(base, 'GET', `/v1/check-results/${check.id}?limit=1`);
      for (const line of final?.multiStepCheckResult?.jobLog ?? []) say(`  ${line}`);
      say(`session ${session.status} in ${session.timeElapsed} ms`);
      return session.status;
    }
    if (Date.now() > end) throw new Error('the multi-step check did not finish within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Starts `mac serve --port 0` and resolves once it prints its URL. */
function startService() {
  const child = spawn(process.execPath, [MAC, 'serve', '--port', '0', '--no-runs'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      resolve({ url: m[1], pid: child.pid, child });
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

async function main() {
  say('mac demo: monitoring as code against a local monitoring API');
  const service = await startService();
  say(`started mac serve (pid ${service.pid}) on ${service.url}`);
  const env = { MAC_API_URL: service.url, MAC_API_KEY: 'mac-dev-key', ...DEMO_ENV };
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  try {
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
    say('\n== run the multi-step check (examples/scripts/status-page.js) against this service');
    const status = await runStatusCheck(service.url);
    if (status !== 'PASSED') {
      say(`\ndemo failed: the multi-step check ended ${status}`);
      return 1;
    }
    say('\n== public pages (no API key needed)');
    await addIncident(service.url);
    say(`status page: ${service.url}/status/shop`);
    say(`dashboard:   ${service.url}/dashboards/shop-status`);
    say('\ndemo done: examples/ applied, a second plan shows no changes, and the multi-step check passed.');
    if (KEEP) {
      say(`mac serve keeps running on ${service.url}; press Ctrl-C to stop it.`);
      await new Promise((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
    return 0;
  } finally {
    // Ctrl-C reaches the service too (same process group); it may have stopped already.
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
    await exited;
    say(`stopped mac serve (pid ${service.pid})`);
  }
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
