import type { ExecutionProgress } from './executor.js';
import type { ChangeOutcome } from './result.js';

/** The part of the CLI's Output that progress needs. */
export interface ProgressSink {
  progress(text: string): void;
  endProgress(): void;
  readonly interactive: boolean;
}

/** Options of a progress reporter; the clock and request counter are injected for tests. */
export interface ProgressOptions {
  sink: ProgressSink;
  /** Requests sent so far by the API client. */
  requests: () => number;
  now?: () => number;
  /** Least time between two redraws of the live line, in ms. */
  redrawMs?: number;
  /**
   * Without a TTY: longest time a finished change's line waits to be written, in ms (default
   * 100). Lines are written together, one write per batch: a write per change costs a syscall
   * and a wake-up of the reader on every answer, CPU the service shares on small machines.
   * 0 writes each line at once.
   */
  batchMs?: number;
}

/** A progress reporter wired to an execution. */
export interface ProgressReporter {
  onProgress(progress: ExecutionProgress, outcome: ChangeOutcome): void;
  /** Ends the live line and stops its timer. */
  finish(): void;
}

const VERB = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/** The live line: done/total, failures and the request rate. */
export function formatProgressLine(p: ExecutionProgress, requestsPerSecond: number): string {
  const failures = p.failed + p.skipped > 0 ? `, ${p.failed} failed, ${p.skipped} skipped` : '';
  return `applying ${p.done}/${p.total}${failures}, ${requestsPerSecond.toFixed(0)} req/s`;
}

/** The plain line for one finished change (no TTY: one line per change, for CI logs). */
export function formatOutcomeLine(p: ExecutionProgress, o: ChangeOutcome): string {
  const at = `[${p.done}/${p.total}]`;
  if (o.status === 'applied') return `${at} ${VERB[o.action]} ${o.key}`;
  if (o.status === 'skipped') return `${at} skipped ${o.action} ${o.key}: ${o.skipReason ?? `needs ${(o.skippedBecause ?? []).join(', ')}`}`;
  return `${at} failed ${o.action} ${o.key}: ${o.error ?? 'failed'}`;
}

/**
 * Reports an execution on stderr: on a TTY a live line redrawn at most every `redrawMs` (and on
 * a timer, so the request rate stays current while requests wait), with each failure printed
 * above it; otherwise one plain line per finished change, written in batches at most `batchMs`
 * old (and at the end, and when the process exits early).
 */
export function createProgressReporter(options: ProgressOptions): ProgressReporter {
  const { sink, requests } = options;
  const now = options.now ?? Date.now;
  const redrawMs = options.redrawMs ?? 100;
  const batchMs = options.batchMs ?? 100;
  const startedAt = now();
  const startRequests = requests();
  let last: ExecutionProgress = { done: 0, total: 0, failed: 0, skipped: 0 };
  let drawnAt = -Infinity;

  // Without a TTY: lines not yet written, and the timer that writes them.
  let pending: string[] = [];
  let batchTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (batchTimer) clearTimeout(batchTimer);
    batchTimer = undefined;
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    sink.progress(lines.join('\n'));
  };
  // A signal ends the process through process.exit (after the lock is released): lines still
  // pending are written on the way out.
  const onExit = () => flush();
  if (!sink.interactive && batchMs > 0) process.once('exit', onExit);

  const rate = () => {
    const seconds = (now() - startedAt) / 1000;
    return seconds > 0 ? (requests() - startRequests) / seconds : 0;
  };
  const draw = () => {
    drawnAt = now();
    sink.progress(formatProgressLine(last, rate()));
  };
  const timer = sink.interactive ? setInterval(draw, 500) : undefined;
  timer?.unref();

  return {
    onProgress(progress, outcome) {
      last = progress;
      if (!sink.interactive) {
        if (batchMs <= 0) return sink.progress(formatOutcomeLine(progress, outcome));
        pending.push(formatOutcomeLine(progress, outcome));
        if (batchTimer === undefined) (batchTimer = setTimeout(flush, batchMs)).unref();
        return;
      }
      if (outcome.status !== 'applied') {
        // A failure must stay visible after the live line moves on.
        sink.endProgress();
        sink.progress(formatOutcomeLine(progress, outcome));
        sink.endProgress();
        draw();
      } else if (progress.done === progress.total || now() - drawnAt >= redrawMs) {
        draw();
      }
    },
    finish() {
      flush();
      process.off('exit', onExit);
      if (timer) clearInterval(timer);
      sink.endProgress();
    },
  };
}
