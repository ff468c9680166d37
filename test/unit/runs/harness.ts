import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type MacServer } from '../../../src/server/server.js';
import { ServiceMetrics } from '../../../src/server/metrics/metrics.js';
import { COLL } from '../../../src/server/kinds.js';
import { runsOf, type Runs, type RunsOptions } from '../../../src/server/runs/runs.js';
import type { ServerOptions } from '../../../src/server/options.js';
import { testStateFile } from '../../helpers/store-mode.js';

/** An in-process service whose runs use short limits, with helpers to seed what other areas own. */
export interface RunsHarness {
  server: MacServer;
  runs: Runs;
  /** Errors the runs reported (instead of printing them). */
  errors: unknown[];
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
  /** Stores a check directly (check routes live in another area). */
  seedCheck(over: Record<string, unknown>): Record<string, any>;
  /** Stores an alert channel and subscribes the check to it. */
  seedChannel(checkId: string, channel: Record<string, unknown>): number;
  close(): Promise<void>;
}

/** Starts the harness (no listening socket: requests go through the app in process). */
export function runsHarness(options: Partial<ServerOptions> = {}, runsOptions: RunsOptions = {}): RunsHarness {
  const server = createServer({ rateLimit: { limit: 0, windowSeconds: 60 }, stateFile: testStateFile(), ...options });
  // The operator metrics, as a listening service with --metrics-port has them.
  if (options.metricsPort !== undefined) server.ctx.metrics = new ServiceMetrics(server.ctx.store, server.deliverer);
  const errors: unknown[] = [];
  const runs = runsOf(server.ctx, { runner: { limits: { idleMs: 50, timeoutMs: 2000 } }, onError: (err) => void errors.push(err), ...runsOptions });
  // Alerts go out as in a listening service.
  server.deliverer.start();
  return {
    server,
    runs,
    errors,
    async call(method, path, body) {
      const headers: Record<string, string> = { authorization: 'Bearer mac-dev-key' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await server.request(`http://127.0.0.1:4010${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, text };
    },
    seedCheck(over) {
      const tx = server.ctx.store.begin('dev');
      const check = {
        id: tx.uuid(),
        name: 'check',
        checkType: 'TCP',
        activated: true,
        muted: false,
        doubleCheck: false,
        shouldFail: false,
        frequency: 10,
        tags: [],
        locations: [],
        privateLocations: [],
        runParallel: false,
        retryStrategy: null,
        degradedResponseTime: 3000,
        maxResponseTime: 5000,
        alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 }, reminders: { amount: 0, interval: 5 } },
        ...over,
      };
      tx.put(COLL.checks, check.id, check);
      tx.commit();
      return check;
    },
    seedChannel(checkId, channel) {
      const tx = server.ctx.store.begin('dev');
      const id = tx.nextInt(COLL.alertChannels);
      tx.put(COLL.alertChannels, id, { id, sendFailure: true, sendRecovery: true, sendDegraded: false, ...channel });
      const subId = tx.nextInt(COLL.alertSubscriptions);
      tx.put(COLL.alertSubscriptions, subId, { id: subId, alertChannelId: id, checkId, groupId: null, activated: true });
      tx.commit();
      return id;
    },
    async close() {
      await runs.scheduler.stop();
      await server.close();
    },
  };
}

/** A local HTTP receiver that records every request (a webhook target). */
export interface Receiver {
  url: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  status: number;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 answering `status` (default 200). */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', requests: [], status: 200, close: async () => undefined };
  const srv = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      receiver.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.statusCode = receiver.status;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  receiver.close = () => new Promise<void>((resolve) => srv.close(() => resolve()));
  return receiver;
}
