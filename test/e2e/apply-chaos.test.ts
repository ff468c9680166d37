import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceAccounts } from '../helpers/accounts.js';
import { cleanEnv, MAC_BIN } from '../helpers/cli.js';
import { macIn } from '../helpers/mac-inprocess.js';
import { startServe, type Served } from '../helpers/serve.js';
import { checksByTag, config, connectionEnv, tcpChecks, writeProject } from './apply-fixtures.js';

// apply through a faulty service is tested in process (test/integration/apply-chaos.test.ts);
// here, a real `mac apply` process killed with SIGKILL. One service for the file (latency keeps
// answers in flight when the kill lands); each case works in an account of its own, and the
// cases run at once. The re-run apply and plan after the kill run in process (macIn).
const CASES = [1, 12, 30];
const accounts = serviceAccounts('kill', CASES.length);
let served: Served;
beforeAll(async () => {
  served = await startServe(['--no-runs', '--latency', '150', ...accounts.args]);
});
afterAll(async () => {
  await served?.stop();
});

/** Every check of `n` exists exactly once (no duplicate, none missing). */
async function expectExactlyOnce(s: Served, project: string, n: number): Promise<void> {
  const counts = await checksByTag(s, project);
  const duplicates = [...counts].filter(([, k]) => k > 1);
  expect(duplicates).toEqual([]);
  expect(counts.size).toBe(n);
}

/**
 * Runs `mac apply` through a relay to the service that SIGKILLs it the moment the service answers
 * its `after`-th create, before that answer reaches it: the kill lands at the same point of the
 * apply however loaded the machine is (a poll of the service's count saw it late, after the last
 * create), with creates still in flight, written by the service and never acknowledged. Returns,
 * once the process is gone and the service answered every request it had sent, how many of the
 * project's checks exist.
 */
async function applyKilledAfter(s: Served, dir: string, project: string, after: number): Promise<number> {
  const upstream = new URL(s.url);
  let created = 0;
  let killed = false;
  let child: ChildProcess | undefined;
  const sockets = new Set<Socket>();
  const relayed = new Set<Promise<void>>();
  const relay = createServer((req, res) => {
    const done = (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (r) => {
          const parts: Buffer[] = [];
          r.on('data', (d: Buffer) => parts.push(d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(parts) }));
          r.on('error', reject);
        });
        up.on('error', reject);
        up.end(Buffer.concat(chunks));
      });
      if (req.method === 'POST' && req.url?.startsWith('/v1/checks/') && answer.status === 201) created += 1;
      if (!killed && created >= after) {
        killed = true;
        child!.kill('SIGKILL');
      }
      if (killed) return void res.destroy();
      res.writeHead(answer.status, answer.headers).end(answer.body);
    })().catch(() => void res.destroy());
    relayed.add(done);
    void done.finally(() => relayed.delete(done));
  });
  relay.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  try {
    const via = { ...s, url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}` };
    child = spawn(process.execPath, [MAC_BIN, 'apply', dir, '--yes', '--concurrency', '4'], { env: cleanEnv(connectionEnv(via)), stdio: 'ignore' });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child!.once('exit', (_code, sig) => resolve(sig)));
    expect(signal, 'mac apply ended before the kill').toBe('SIGKILL');
    // What the process sent before it died still lands: its connections close once the relay has
    // read them to the end, and each request it read is answered by the service.
    const deadline = Date.now() + 60_000;
    while (sockets.size > 0 || relayed.size > 0) {
      if (Date.now() > deadline) throw new Error(`the relay still holds ${sockets.size} connections and ${relayed.size} requests of the killed apply`);
      await Promise.all(relayed);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => relay.close(() => resolve()));
  }
  return [...(await checksByTag(s, project)).values()].reduce((a, b) => a + b, 0);
}

describe.concurrent('apply killed with SIGKILL', () => {
  const TOTAL = 80;
  it.each(CASES)('converges without duplicates when re-run after a kill at %i creates', async (after) => {
    // Latency keeps answers in flight when the kill lands: some creates are written but never acknowledged.
    const account = accounts.next(served);
    const dir = writeProject({ 'mac.config.yaml': config('kill'), 'checks.yaml': tcpChecks(TOTAL) });
    const seen = await applyKilledAfter(account, dir, 'kill', after);
    expect(seen).toBeGreaterThanOrEqual(after);
    expect(seen).toBeLessThan(TOTAL);

    const rerun = await macIn(account, ['apply', dir, '--yes']);
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`applied ${TOTAL - seen}, failed 0`);
    await expectExactlyOnce(account, 'kill', TOTAL);
    expect((await macIn(account, ['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);
});
