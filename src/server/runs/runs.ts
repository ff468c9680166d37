import type { ServerContext } from '../context.js';
import { RunEngine, type EngineOptions } from './engine.js';
import { Heartbeats } from './heartbeats.js';
import { Scheduler } from './scheduler.js';
import { AgentQueue } from '../agents/queue.js';

/** The run machinery of one service: the engine, heartbeats and the scheduler that drives both. */
export interface Runs {
  engine: RunEngine;
  heartbeats: Heartbeats;
  scheduler: Scheduler;
  /** The work of private locations, run by their agents. */
  agents: AgentQueue;
}

/** How a service's runs are made: the engine's options and the scheduler's bound on sessions at once. */
export interface RunsOptions extends EngineOptions {
  /** Scheduled sessions at once (default MAX_CONCURRENT_SESSIONS). */
  maxSessions?: number;
}

const byContext = new WeakMap<ServerContext, Runs>();

/** The runs of a service, created on first use; `options` count only on that first call. */
export function runsOf(ctx: ServerContext, options: RunsOptions = {}): Runs {
  let runs = byContext.get(ctx);
  if (!runs) {
    const { maxSessions, ...engineOptions } = options;
    const engine = new RunEngine(ctx, { onError: (err) => process.stderr.write(`mac serve: run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`), ...engineOptions });
    const heartbeats = new Heartbeats(ctx, engine.recorder, engine.alerter);
    const agents = new AgentQueue(ctx, engine);
    engine.agents = agents;
    runs = { engine, heartbeats, scheduler: new Scheduler(ctx, engine, heartbeats, maxSessions), agents };
    byContext.set(ctx, runs);
  }
  return runs;
}

/**
 * Starts the scheduler unless the service runs with `--no-runs`; returns the function that
 * stops it and waits for the sessions under way, all of them or up to a grace (Scheduler.stop):
 * call it before the server closes its store.
 */
export function startRuns(ctx: ServerContext, options: RunsOptions = {}): (graceMs?: number, cut?: AbortSignal) => Promise<number> {
  const { scheduler, agents } = runsOf(ctx, options);
  if (ctx.options.runs) {
    scheduler.start();
    agents.start();
  }
  return (graceMs, cut) => {
    agents.stop();
    return scheduler.stop(graceMs, cut);
  };
}
