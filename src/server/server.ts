import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createApp, type AppExtras } from './app.js';
import { createContext, type ServerContext } from './context.js';
import { resolveServerOptions, type ServerOptions } from './options.js';
import { Store } from './store/store.js';
import { Retention } from './store/retention.js';
import { DatabaseUnavailable } from './store/errors.js';
import { RUN_INDEX } from './rundata/collections.js';
import { Deliverer } from './alerts/outbox.js';
import { createSenders } from './alerts/channels.js';
import { SubscriberMailer } from './status-pages/fanout.js';
import { indexSubscriptions } from './status-pages/subscriptions.js';
import { databaseTarget, policyDispatcher, policyRules } from './net/policy.js';
import { isPostgresUrl } from './options.js';

/** Delay of the first retention step after the service starts listening (ms). */
export const RETENTION_FIRST_STEP_MS = 5_000;

/** A created service: its app (for in-process requests), context, and listen/close. */
export interface MacServer {
  ctx: ServerContext;
  /** Handles a request in process (tests, fuzzing), without a socket. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /**
   * Starts listening; resolves with the URL (`http://host:port`) once the network policy knows
   * the port (rejects, not listening, when an item of `--deny-targets` does not resolve).
   */
  listen(): Promise<string>;
  /** Stops accepting connections, ends open ones and closes the database. */
  close(): Promise<void>;
  /** Delivers the queued alerts and mails (started by `listen`). */
  deliverer: Deliverer;
  /** Works off the incident mails to many subscribers (started by `listen`). */
  subscriberMail: SubscriberMailer;
  /** The URL of the operator metrics (`--metrics-port`), once listening. */
  metricsUrl?: string;
  /** Registers work to stop on close (the scheduler's timers, for instance). */
  onClose(fn: () => void | Promise<void>): void;
}

/**
 * Creates the service: opens the database when one is set (throws a StateError, leaving the file
 * as it is, when it cannot), builds the app; nothing listens until `listen`, which also starts the
 * retention (its first step `RETENTION_FIRST_STEP_MS` / time scale later).
 */
export function createServer(partial: Partial<ServerOptions> = {}, extras: AppExtras = {}): MacServer {
  const options = resolveServerOptions(partial);
  const store = options.stateFile ? Store.open(options.stateFile, RUN_INDEX) : Store.memory(RUN_INDEX);
  // The writer thread of the group commit starts now, before the first batch (which would
  // otherwise be written on this thread while it starts).
  void store.writesStarted();
  const ctx = createContext(options, store);
  const onInternalError = (err: unknown) => process.stderr.write(`mac serve: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  // A failed group commit of run data (kept and retried, or dropped with its count).
  store.onError = onInternalError;
  const app = createApp(ctx, { onInternalError, ...extras });
  const deliverer = new Deliverer(ctx, extras.senders, () => createSenders(options.alerts));
  ctx.outbox = deliverer;
  // Subscriptions stored before their subscriber records existed get them (once per account).
  indexSubscriptions(store, options.now());
  const subscriberMail = new SubscriberMailer(ctx);
  ctx.subscriberMail = subscriberMail;
  const closers: Array<() => void | Promise<void>> = [];
  let retention: Retention | undefined;
  if (options.retentionDays > 0) {
    // Skips its turn while the database is unavailable (the store reports that once).
    const onError = (err: unknown) => void (err instanceof DatabaseUnavailable || onInternalError(err));
    retention = new Retention(store, { days: options.retentionDays, timeScale: options.timeScale, ...options.retention, now: options.now, onError });
    closers.push(() => retention!.stop());
  }
  let http: Server | undefined;
  let metricsServer: Server | undefined;
  let closing = false;
  const service: MacServer = {
    ctx,
    deliverer,
    subscriberMail,
    request: (path, init) => Promise.resolve(app.request(path, init)),
    onClose: (fn) => closers.push(fn),
    async listen() {
      // The operator metrics (prom-client and what it loads) only with
      // --metrics-port; made before the first request, so that every one is counted.
      const metrics = options.metricsPort !== undefined ? await import('./metrics/metrics.js') : undefined;
      if (metrics && !ctx.metrics) ctx.metrics = new metrics.ServiceMetrics(store, deliverer);
      const listener = getRequestListener(app.fetch);
      http = createHttpServer(listener);
      const server = http;
      // What the first requests would otherwise wait for is made ready before the service
      // listens, side by side: the alerts' HTTP client (undici, behind the network policy's
      // dispatcher), whose modules took hundreds of milliseconds of the main thread on a loaded
      // machine, and the thread of the public pages' reads with its connections (store/reader.ts),
      // which booted at the first page.
      const dispatcher = extras.senders
        ? null
        : policyDispatcher(ctx.policy).catch((err: unknown) => {
            onInternalError(err);
            return null;
          });
      return Promise.all([dispatcher, ctx.store.warmReads()]).then(() => new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => resolve((server.address() as AddressInfo).port));
      })).then(async (port) => {
        // No check runs before its policy knows the service's port.
        try {
          const database = options.stateFile && isPostgresUrl(options.stateFile) ? databaseTarget(options.stateFile) : null;
          ctx.policy.replace(await policyRules(options.denyTargets, { listen: { host: options.host, port }, database }));
        } catch (err) {
          await new Promise<void>((done) => server.close(() => done()));
          http = undefined;
          throw err;
        }
        // The first retention step waits until the service listens, and a little more (divided by
        // the time scale, like the retention period itself: at --time-scale 60 a day of run data
        // lasts 24 minutes, and a restart's expired rows go 5 s / 60 after it listens).
        retention?.start((options.retention.firstMs ?? RETENTION_FIRST_STEP_MS) / options.timeScale);
        // What the queue holds (from before a restart too) goes out once the service is up. Alerts
        // obey the network policy too: every request of the senders goes through its dispatcher,
        // made once undici is loaded (not awaited here: the service answers meanwhile).
        if (extras.senders) deliverer.start();
        else {
          void dispatcher?.then((made) => {
            if (closing || !made) return;
            deliverer.useSenders(createSenders({ ...options.alerts, dispatcher: made }));
            deliverer.start();
          });
        }
        subscriberMail.start();
        if (metrics && ctx.metrics && options.metricsPort !== undefined) {
          const served = await metrics.serveMetrics(ctx.metrics, options.host, options.metricsPort);
          metricsServer = served.server;
          service.metricsUrl = served.url;
        }
        const host = options.host.includes(':') ? `[${options.host}]` : options.host;
        ctx.listenUrl = `http://${host}:${port}`;
        return ctx.listenUrl;
      });
    },
    async close() {
      closing = true;
      // Requests first: nothing new starts (a triggered session, a write) while the work
      // registered with onClose (the scheduler, the retention) winds down and the store closes.
      if (metricsServer) {
        const server = metricsServer;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      if (http) {
        const server = http;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      for (const fn of closers.splice(0)) await fn();
      subscriberMail.stop();
      // After the runs: the alerts their last sessions queued get their chance to go.
      await deliverer.stop();
      store.close();
    },
  };
  return service;
}
