/**
 * Operator metrics in the Prometheus text format (`--metrics-port`: `GET /metrics` on a port of
 * its own, never the public one): runs and failures by check type and location, run durations,
 * runs shed under overload, the alert and mail queue, the event loop's delay, the database's
 * call times, public pages refused by their rate limit. Kept by prom-client in a registry per
 * service (several services in one process, as in the tests, do not share counters).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Store } from '../store/store.js';
import { RUN_COLL } from '../rundata/collections.js';

/** Run durations (seconds): from a fast TCP connect to a long multi-step script. */
const RUN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Store call times (seconds): a memory read to a slow database commit. */
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** One finished location of a run, as the metrics count it. */
export interface RunSample {
  checkType: string;
  location: string;
  failed: boolean;
  degraded: boolean;
  /** The run's response time (ms). */
  responseTimeMs: number;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly runs: Counter<'check_type' | 'location' | 'outcome'>;
  private readonly failures: Counter<'check_type' | 'location'>;
  private readonly durations: Histogram<'check_type' | 'location'>;
  private readonly shed: Counter;
  private readonly waiting: Gauge;
  private readonly refused: Counter;
  private readonly storeCalls: Histogram<'op'>;

  constructor(store: Store, queue: { readonly sending: number }) {
    const registers = [this.registry];
    // Process metrics, the event loop's delay among them (nodejs_eventloop_lag_*_seconds, from
    // perf_hooks.monitorEventLoopDelay, the percentiles since the previous scrape).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
    this.runs = new Counter({ name: 'mac_check_runs_total', help: 'Finished check runs (FINAL results), by check type, location and outcome (passed, degraded, failed).', labelNames: ['check_type', 'location', 'outcome'], registers });
    this.failures = new Counter({ name: 'mac_check_failures_total', help: 'Failed check runs (a failed assertion or an error of the run), by check type and location.', labelNames: ['check_type', 'location'], registers });
    this.durations = new Histogram({ name: 'mac_check_run_duration_seconds', help: 'Response time of finished check runs, by check type and location.', labelNames: ['check_type', 'location'], buckets: RUN_BUCKETS, registers });
    this.shed = new Counter({ name: 'mac_runs_shed_total', help: 'Due runs passed over: they waited for a free slot past their check\'s next due time (the service was at its run capacity).', registers });
    this.waiting = new Gauge({ name: 'mac_runs_waiting', help: 'Due runs waiting for a free slot at the scheduler\'s last tick.', registers });
    this.refused = new Counter({ name: 'mac_public_requests_refused_total', help: 'Requests of public pages answered 429 (rate limit per client address).', registers });
    this.storeCalls = new Histogram({ name: 'mac_store_call_duration_seconds', help: 'Time of each call of the database (or memory store), by operation; the event loop waits meanwhile.', labelNames: ['op'], buckets: STORE_BUCKETS, registers });
    new Gauge({
      name: 'mac_notification_queue_depth',
      help: 'Alert notifications and mails waiting to be delivered (stored in the queue, all accounts).',
      registers,
      collect() {
        let n = 0;
        for (const account of store.accountIds()) n += store.count(account, RUN_COLL.outbox);
        this.set(n);
      },
    });
    new Gauge({
      name: 'mac_notification_deliveries_in_flight',
      help: 'Deliveries of alert notifications and mails being sent now.',
      registers,
      collect() {
        this.set(queue.sending);
      },
    });
    store.observeCalls((op, seconds) => this.storeCalls.observe({ op }, seconds));
  }

  /** One finished location of a run. */
  run(s: RunSample): void {
    const labels = { check_type: s.checkType, location: s.location };
    this.runs.inc({ ...labels, outcome: s.failed ? 'failed' : s.degraded ? 'degraded' : 'passed' });
    if (s.failed) this.failures.inc(labels);
    this.durations.observe(labels, Math.max(0, s.responseTimeMs) / 1000);
  }

  /** Due times of checks passed over: their runs waited past the next due time for a slot, and never run. */
  runsShed(count: number): void {
    if (count > 0) this.shed.inc(count);
  }

  /** Due runs waiting for a free slot now (the scheduler's last tick). */
  runsWaiting(count: number): void {
    this.waiting.set(count);
  }

  /** A public page request refused by the rate limit. */
  pageRefused(): void {
    this.refused.inc();
  }

  /** The text format of every metric now. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * Serves `GET /metrics` on `host:port` (0: a free port); resolves with the URL of the metrics.
 * Nothing else is served there; it is meant for a scraper on the operator's network.
 */
export function serveMetrics(metrics: ServiceMetrics, host: string, port: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.text().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const h = host.includes(':') ? `[${host}]` : host;
      resolve({ url: `http://${h}:${(server.address() as AddressInfo).port}/metrics`, server });
    });
  });
}
