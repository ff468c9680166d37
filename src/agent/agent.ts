/**
 * `mac agent`: runs a private location's checks on this machine. Outbound only: it asks the
 * service for due runs (long poll, agent protocol v1), runs them with the runners of `mac serve`
 * (scripts in the same sandbox), and posts each run's attempts. Several agents of one location
 * share its work; the service re-queues a claim whose agent went silent once the lease ends.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { readStreamLimited, runCheck, type AttemptResult } from '../runner/index.js';

/** Protocol spoken (the path's version). */
export const AGENT_PROTOCOL = 1;
/** How long one claim request waits for work at the service (s). */
export const POLL_WAIT_S = 20;
/** Waits between attempts to reach an unreachable service: from 1 s, doubling, at most 30 s, with jitter. */
export const BACKOFF_MIN_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;
/** The service cuts retry waits to this (as `mac serve` does for its own runs), before the time scale. */
const MAX_RETRY_WAIT_MS = 2_000;
/** How long slots freed while runs are under way wait for more before one claim request takes them together (ms). */
export const CLAIM_COLLECT_MS = 100;
/** Results one request posts at most, where the service takes result batches. */
export const RESULT_BATCH_MAX = 50;
/** Bytes of one result batch at most (the service's bound of a results body, less room for the envelope). */
export const RESULT_BATCH_BYTES = 15 * 1024 * 1024 - 64 * 1024;
/** Largest answer the agent reads from the service. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface AgentOptions {
  apiUrl: string;
  key: string;
  concurrency: number;
  version: string;
  /** Scripts may run without the sandbox where it is missing (`--unsafe-scripts`). */
  unsafeScripts: boolean;
  /** How long a stop waits for runs under way before it gives their claims back (ms). */
  stopGraceMs: number;
  log: (line: string) => void;
  /** Request timeout beyond the long poll's wait (ms). */
  requestSlackMs?: number;
}

/** Why the agent stopped for good: its key was refused. */
export class KeyRefused extends Error {}

interface ClaimedRun {
  runId: string;
  token: string;
  dueAt: string;
  leaseUntil: string;
  check: Record<string, unknown> & { id: string; name?: string; checkType: string };
}

interface ClaimAnswer {
  protocol: number;
  location: string;
  /** Additions to the protocol the service serves (`result-batches`). */
  features?: string[];
  leaseSeconds: number;
  timeScale: number;
  runs: ClaimedRun[];
}

/** `...` and the last 4 characters: how a key is named anywhere it is shown. */
export function maskKey(key: string): string {
  return `...${key.slice(-4)}`;
}

/** Runs the agent until `stop` aborts (then finishes or releases its runs) or the key is refused (throws KeyRefused). */
export async function runAgent(opts: AgentOptions, stop: AbortSignal): Promise<{ ran: number }> {
  const id = randomUUID();
  const base = opts.apiUrl.replace(/\/+$/, '');
  const info = { id, version: opts.version, hostName: hostname().slice(0, 255) || 'unknown' };
  const running = new Map<string, { run: ClaimedRun; done: Promise<void>; abort: AbortController }>();
  let ran = 0;
  let failures = 0;
  let location = '';
  let refused: KeyRefused | undefined;
  // Wakes the poll loop when a slot frees.
  let slotFreed: (() => void) | undefined;
  // Since when freed slots wait to be claimed together.
  let collectingSince: number | undefined;
  const pollAbort = new AbortController();
  const onStop = () => {
    pollAbort.abort();
    slotFreed?.();
  };
  stop.addEventListener('abort', onStop, { once: true });

  const call = async (path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<{ status: number; json: unknown }> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await fetch(`${base}/agent/v${AGENT_PROTOCOL}/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.key}`, 'content-type': 'application/json', 'user-agent': `mac-agent/${opts.version}` },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const text = await readStreamLimited(res.body, MAX_ANSWER_BYTES);
    if (text === null) throw new Error(`the service's answer exceeds ${MAX_ANSWER_BYTES} bytes`);
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.status === 401) throw (refused = new KeyRefused(`the service refused the private-location key ${maskKey(opts.key)} (deleted, or not a key of this service)`));
    return { status: res.status, json };
  };

  /**
   * Keeps the claim of a run under way: at half of what is left of its lease, extends it by a
   * lease (a check may run longer than one: a browser check up to 240 s). A claim the service no
   * longer extends (it ended, or another agent holds it) is left to end.
   */
  const keepClaim = (run: ClaimedRun): (() => void) => {
    let timer: NodeJS.Timeout | undefined;
    let over = false;
    const plan = () => {
      if (over) return;
      const left = Date.parse(run.leaseUntil) - Date.now();
      timer = setTimeout(() => void extend(), Math.max(1_000, left / 2));
      timer.unref();
    };
    const extend = async () => {
      try {
        const r = await call('leases', { agentId: id, runs: [{ runId: run.runId, token: run.token }] }, 10_000);
        const got = r.status === 200 ? (r.json as { runs?: Array<{ runId: string; token: string; leaseUntil: string }> }).runs?.find((x) => x.runId === run.runId) : undefined;
        if (got && typeof got.token === 'string' && Number.isFinite(Date.parse(got.leaseUntil))) {
          run.token = got.token;
          run.leaseUntil = got.leaseUntil;
        } else if (r.status === 200) {
          opts.log(`mac agent: the claim of ${describe(run)} could not be extended: another agent may run it`);
          return;
        }
      } catch (err) {
        if (err instanceof KeyRefused) return;
        // The service unreachable: tried again at half of what is left.
      }
      plan();
    };
    plan();
    return () => {
      over = true;
      clearTimeout(timer);
    };
  };

  const execute = async (claim: ClaimAnswer, run: ClaimedRun, abort: AbortController) => {
    const attempts: AttemptResult[] = [];
    const stopKeeping = keepClaim(run);
    try {
      await runCheck(run.check as Parameters<typeof runCheck>[0], {
        account: location,
        scripts: { allowUnsandboxed: opts.unsafeScripts },
        maxWaitMs: MAX_RETRY_WAIT_MS,
        sleep: (ms) => delay(ms / (claim.timeScale > 0 ? claim.timeScale : 1), undefined, { signal: abort.signal }).catch(() => undefined),
        onAttempt: (a) => void attempts.push(a),
      });
    } catch (err) {
      const message = `internal runner error: ${err instanceof Error ? err.message : String(err)}`;
      const now = new Date().toISOString();
      attempts.push({ resultType: 'FINAL', attempts: attempts.length, hasFailures: false, hasErrors: true, isDegraded: null, overMaxResponseTime: null, responseTime: 0, startedAt: now, stoppedAt: now, apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: { errors: [message], startTime: Date.now(), endTime: Date.now(), runtimeVersion: null, jobLog: [message], jobAssets: null }, errorMessage: message, networkError: false });
    }
    stopKeeping();
    if (abort.signal.aborted) return;
    const item = {
      runId: run.runId,
      token: run.token,
      attempts: attempts.map((a) => ({ ...a, assets: a.assets?.map((x) => ({ name: x.name, type: x.type, contentType: x.contentType, data: x.data.toString('base64') })) })),
    };
    await new Promise<void>((done) => {
      ready.push({ run, item, bytes: Buffer.byteLength(JSON.stringify(item)), done });
      void post();
    });
  };

  // Results ready to post. One request at a time posts them: a result ready while none is under
  // way goes at once; those ready meanwhile go together in the next (result-batches, when the
  // service serves it), so a busy agent makes one request for many results, an idle one no wait.
  const ready: Array<{ run: ClaimedRun; item: { runId: string; token: string; attempts: unknown[] }; bytes: number; done: () => void }> = [];
  let posting = false;
  let batches = false;
  const settle = (entries: typeof ready, outcome: (e: (typeof ready)[number]) => void) => {
    for (const e of entries) {
      const i = ready.indexOf(e);
      if (i >= 0) ready.splice(i, 1);
      outcome(e);
      e.done();
    }
  };
  const refusedResult = (e: (typeof ready)[number], message: string) => opts.log(`mac agent: result of ${describe(e.run)} not recorded: ${message}`);
  const post = async () => {
    if (posting) return;
    posting = true;
    let wait = BACKOFF_MIN_MS;
    try {
      while (ready.length > 0) {
        // Posted until the service answers, while the claim lasts: past it, another agent may run it.
        const now = Date.now();
        settle(
          ready.filter((e) => Date.parse(e.run.leaseUntil) <= now),
          (e) => refusedResult(e, 'its claim ended before the service could be reached'),
        );
        if (ready.length === 0) break;
        const batch: typeof ready = [];
        let bytes = 0;
        for (const e of ready) {
          if (batch.length >= (batches ? RESULT_BATCH_MAX : 1) || (batch.length > 0 && bytes + e.bytes > RESULT_BATCH_BYTES)) break;
          batch.push(e);
          bytes += e.bytes;
        }
        const until = Math.min(...batch.map((e) => Date.parse(e.run.leaseUntil)));
        const timeoutMs = Math.max(1_000, Math.min(30_000, until - Date.now()));
        try {
          if (batch.length > 1) {
            const r = await call('result-batches', { agentId: id, results: batch.map((e) => e.item) }, timeoutMs);
            const answers = r.status === 200 ? (r.json as { results?: Array<{ status?: number; message?: string }> } | undefined)?.results : undefined;
            if (Array.isArray(answers) && answers.length === batch.length) {
              settle(batch, (e) => {
                const a = answers[batch.indexOf(e)];
                if (a?.status === 200) ran++;
                else refusedResult(e, typeof a?.message === 'string' ? a.message.slice(0, 300) : `status ${String(a?.status)}`);
              });
              wait = BACKOFF_MIN_MS;
              continue;
            }
            if (r.status === 404) {
              // A service without result batches: one request per result from now on.
              batches = false;
              continue;
            }
            if (r.status === 400 || r.status === 413) {
              settle(batch, (e) => refusedResult(e, messageOf(r.json) ?? `HTTP ${r.status}`));
              continue;
            }
          } else {
            const [e] = batch;
            const r = await call('results', { runId: e.item.runId, token: e.item.token, agentId: id, attempts: e.item.attempts }, timeoutMs);
            if (r.status === 200) {
              settle(batch, () => void ran++);
              wait = BACKOFF_MIN_MS;
              continue;
            }
            if (r.status === 409 || r.status === 400 || r.status === 413) {
              settle(batch, (x) => refusedResult(x, messageOf(r.json) ?? `HTTP ${r.status}`));
              continue;
            }
          }
        } catch (err) {
          if (err instanceof KeyRefused) {
            settle([...ready], () => undefined);
            return;
          }
        }
        await delay(wait + Math.random() * wait * 0.2);
        wait = Math.min(BACKOFF_MAX_MS, wait * 2);
      }
    } finally {
      posting = false;
    }
  };

  try {
    while (!stop.aborted && !refused) {
      const free = opts.concurrency - running.size;
      // Claims go in batches: with runs under way, slots freed are collected for a moment (up to a
      // quarter of the concurrency, or CLAIM_COLLECT_MS) rather than claimed one request each.
      const batch = Math.max(1, Math.ceil(opts.concurrency / 4));
      if (free <= 0 || (free < batch && running.size > 0 && Date.now() - (collectingSince ??= Date.now()) < CLAIM_COLLECT_MS)) {
        const wait = free <= 0 ? undefined : CLAIM_COLLECT_MS - (Date.now() - (collectingSince ?? Date.now()));
        await new Promise<void>((resolve) => {
          const timer = wait === undefined ? undefined : setTimeout(resolve, Math.max(0, wait));
          slotFreed = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        continue;
      }
      collectingSince = undefined;
      let answer: { status: number; json: unknown };
      try {
        answer = await call('claims', { agent: info, max: free, waitSeconds: POLL_WAIT_S }, POLL_WAIT_S * 1000 + (opts.requestSlackMs ?? 15_000), pollAbort.signal);
      } catch (err) {
        if (err instanceof KeyRefused) break;
        if (stop.aborted) break;
        failures++;
        const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(failures - 1, 10));
        if (failures === 1 || failures % 10 === 0) opts.log(`mac agent: cannot reach ${base} (${causeOf(err)}); trying again in ${Math.round(wait / 1000)} s`);
        await delay(wait * (0.8 + Math.random() * 0.4), undefined, { signal: stop }).catch(() => undefined);
        continue;
      }
      if (answer.status !== 200) {
        failures++;
        const wait = answer.status === 429 ? 5_000 : Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(failures - 1, 10));
        if (failures === 1 || failures % 10 === 0) opts.log(`mac agent: the service answered ${answer.status}${messageOf(answer.json) ? `: ${messageOf(answer.json)}` : ''}; trying again in ${Math.round(wait / 1000)} s`);
        await delay(wait, undefined, { signal: stop }).catch(() => undefined);
        continue;
      }
      if (failures > 0) opts.log(`mac agent: reached ${base} again`);
      failures = 0;
      const claim = answer.json as ClaimAnswer;
      batches = Array.isArray(claim.features) && claim.features.includes('result-batches');
      if (!location) opts.log(`mac agent: running the checks of private location "${claim.location}" (${opts.concurrency} at once)`);
      location = claim.location;
      for (const run of claim.runs ?? []) {
        const abort = new AbortController();
        const done = execute(claim, run, abort).finally(() => {
          running.delete(run.runId);
          slotFreed?.();
          slotFreed = undefined;
        });
        running.set(run.runId, { run, done, abort });
      }
    }
    if (refused) throw refused;
    // Stopping: the runs under way may finish within the grace; those left are given back.
    if (running.size > 0) {
      opts.log(`mac agent: stopping: waiting up to ${Math.round(opts.stopGraceMs / 1000)} s for ${running.size} run${running.size === 1 ? '' : 's'} under way`);
      // The grace's timer is cancelled once the runs finished: left pending, it kept the process
      // alive for the whole grace after its last run.
      const graceOver = new AbortController();
      try {
        await Promise.race([Promise.allSettled([...running.values()].map((r) => r.done)), delay(opts.stopGraceMs, undefined, { signal: graceOver.signal }).catch(() => undefined)]);
      } finally {
        graceOver.abort();
      }
    }
    if (running.size > 0) {
      const left = [...running.values()];
      for (const r of left) r.abort.abort();
      try {
        const r = await call('releases', { runs: left.map((x) => ({ runId: x.run.runId, token: x.run.token })) }, 10_000);
        opts.log(`mac agent: gave back ${(r.json as { released?: number } | undefined)?.released ?? 0} unfinished run(s) to the service`);
      } catch (err) {
        opts.log(`mac agent: could not give back ${left.length} unfinished run(s) (${causeOf(err)}): they run again once their lease ends`);
      }
    }
    return { ran };
  } finally {
    stop.removeEventListener('abort', onStop);
  }
}

function describe(run: ClaimedRun): string {
  return `check ${run.check.id} due at ${run.dueAt}`;
}

function messageOf(json: unknown): string | undefined {
  const m = (json as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? m.slice(0, 300) : undefined;
}

function causeOf(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; name?: string; message?: string };
  if (e?.name === 'TimeoutError') return 'timed out';
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
