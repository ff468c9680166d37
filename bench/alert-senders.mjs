// The channel senders' own cost, without the queue: delivery attempts per second and the p95 of
// one attempt, for an HTTP channel (a webhook; Slack, PagerDuty, Opsgenie and Twilio share the
// same request path) and for mail over SMTP (a connection per mail). The receivers (an HTTP
// server and a real smtp-server) run in a child process so they never share the senders' event
// loop. The queue drains through these calls, so their rate bounds its own.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './lib/resources.mjs';

const RECEIVERS = `
const http = require('node:http');
const { SMTPServer } = require('smtp-server');
let mails = 0;
const web = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); }); });
web.keepAliveTimeout = 5000;
const smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false, onData(stream, _s, cb) { stream.resume(); stream.on('end', () => { mails++; cb(); }); } });
web.listen(0, '127.0.0.1', () => smtp.listen(0, '127.0.0.1', () => process.send({ http: web.address().port, smtp: smtp.server.address().port })));
process.on('message', (m) => { if (m === 'count') process.send({ mails }); });
`;

function startReceivers() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const child = track(spawn(process.execPath, ['-e', RECEIVERS], { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ ...m, child }));
    child.once('exit', (code) => reject(new Error(`bench receivers exited with ${code}`)));
  });
}

const p = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Runs `n` calls of `one` with `concurrency` workers; attempts per second, p50/p95 of one, failures. */
async function measure(one, n, concurrency) {
  const times = [];
  let failures = 0;
  let next = 0;
  let lastError = '';
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const s = performance.now();
        const outcome = await one();
        times.push(performance.now() - s);
        if (!outcome.ok) {
          failures++;
          lastError = outcome.error;
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  return { n, concurrency, perSecond: n / seconds, p50Ms: p(times, 0.5), p95Ms: p(times, 0.95), failures, lastError };
}

/** Measures both channels; `quick` sends fewer. */
export async function main({ quick = false, log = () => {} } = {}) {
  const { createSenders } = await import('../dist/server/alerts/channels.js');
  const { resolveSenderSettings } = await import('../dist/server/alerts/settings.js');
  const r = await startReceivers();
  const senders = createSenders(resolveSenderSettings({ smtpUrl: `smtp://127.0.0.1:${r.smtp}`, mailFrom: 'bench@example.com' }));
  const message = {
    alertType: 'ALERT_FAILURE',
    checkAlertId: 'bench',
    checkId: 'c1',
    checkName: 'bench check',
    checkType: 'API',
    runLocation: 'local',
    responseTime: 120,
    startedAt: new Date().toISOString(),
    errorMessage: 'Expected status 200, got 503',
    checkResultId: 'r1',
    runUrl: 'https://mon.example.com/runs/r1',
  };
  const webhook = { id: 1, type: 'WEBHOOK', config: { name: 'bench', url: `http://127.0.0.1:${r.http}/hook` } };
  const email = { id: 2, type: 'EMAIL', config: { address: 'ops@example.com' } };
  try {
    // Warm up (JIT, module loading of undici and nodemailer).
    await measure(() => senders.send(webhook, message), 50, 4);
    await measure(() => senders.send(email, message), 10, 2);
    const httpN = quick ? 1000 : 5000;
    log(`alert-senders: ${httpN} webhook attempts, concurrency 16 ...`);
    const http = await measure(() => senders.send(webhook, message), httpN, 16);
    const mailN = quick ? 300 : 1000;
    log(`alert-senders: ${mailN} mails over SMTP, concurrency 8 ...`);
    const before = await count(r.child);
    const mail = await measure(() => senders.send(email, message), mailN, 8);
    const received = (await count(r.child)) - before;
    return { bench: 'alert-senders', http, mail: { ...mail, received } };
  } finally {
    senders.close();
    await stopChild(r.child);
  }
}

function count(child) {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m.mails));
    child.send('count');
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const r = await main({ quick, log: (l) => process.stderr.write(`${l}\n`) });
  const show = (x) => `${x.perSecond.toFixed(0)}/s, p50 ${x.p50Ms.toFixed(1)} ms, p95 ${x.p95Ms.toFixed(1)} ms, ${x.failures} failed${x.failures ? ` (${x.lastError})` : ''}`;
  console.log(`webhook (HTTP): ${r.http.n} attempts at concurrency ${r.http.concurrency}: ${show(r.http)}`);
  console.log(`mail (SMTP): ${r.mail.n} mails at concurrency ${r.mail.concurrency}: ${show(r.mail)}; ${r.mail.received} received`);
}
