import { setTimeout as delay } from 'node:timers/promises';
import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import { RunRecorder, type AttemptInput } from '../rundata/recorder.js';
import type { CheckResult, StoredSession } from '../rundata/types.js';
import { RUN_COLL } from '../rundata/collections.js';
import { rawErrorMessage } from '../rundata/error-message.js';
import { runCheck, notExecuted, NOT_EXECUTED, type AttemptResult, type RunOptions } from '../../runner/index.js';
import { attemptLocation, sessionLocations } from './schedule.js';
import { sessionVerdict, type SessionVerdict } from './alert-state.js';
import { Alerter, type CheckRecord } from './alerts.js';
import { DatabaseUnavailable } from '../store/errors.js';
import type { Transaction } from '../store/store.js';

/**
 * The variables a run sees (a script's `process.env`): the account's variables (GET /v1/variables),
 * then the check's own `environmentVariables` (multi-step and browser checks have them), the
 * check's replacing the account's of the same key, as in the reference. Secret ones stay secret:
 * the runner scrubs their values from what it records. Items that are not `{key, value}` strings
 * are left out.
 */
export function runVariables(accountVariables: readonly unknown[], own: unknown): RunVariable[] {
  const merged = new Map<string, RunVariable>();
  const add = (items: readonly unknown[]) => {
    for (const v of items as Array<Record<string, unknown> | null>) {
      if (v && typeof v.key === 'string' && typeof v.value === 'string') merged.set(v.key, { key: v.key, value: v.value, locked: v.locked === true, secret: v.secret === true });
    }
  };
  add(accountVariables);
  if (Array.isArray(own)) add(own);
  return [...merged.values()];
}

/** One variable of a run's environment. */
export interface RunVariable {
  key: string;
  value: string;
  locked: boolean;
  secret: boolean;
}

/** The service cuts retry waits to this (api-decisions §5.2), before the time scale. */
export const SERVICE_MAX_WAIT_MS = 2000;

/** Check types the service executes; heartbeat checks are fed by pings, never run. */
export const EXECUTED = new Set(['TCP', 'DNS', 'URL', 'API', 'ICMP', 'MULTI_STEP', 'BROWSER']);

/** Options of the engine beyond the service context (tests shorten limits). */
export interface EngineOptions {
  runner?: Pick<RunOptions, 'limits' | 'systemNameServer' | 'multiStep' | 'icmp' | 'sandbox'>;
  /** Where unexpected errors of background runs are reported. */
  onError?: (err: unknown) => void;
}

/**
 * Runs sessions of stored checks and records what happens: one session per call, every
 * location of it in parallel, attempts and FINAL results through the run-data recorder, then
 * the alert state. Shared by the scheduler and POST /v1/check-sessions/trigger.
 */
export class RunEngine {
  readonly recorder: RunRecorder;
  readonly alerter: Alerter;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly running = new Map<string, number>();
  // Per check: how many sessions have started, to rotate locations when not runParallel.
  private readonly rotation = new Map<string, number>();
  /** Where the slots of private locations go (the agents' queue); none: they are not run. */
  agents?: { enqueue(account: string, check: CheckRecord, slot: string, dueMs: number, sessionId?: string): void };
  // Set when a stop left sessions under way (settle): what they do or throw later is dropped.
  private abandoned = false;
  /** Per account, its variables as runs see them, and the store's version of the kind they were read at. */
  private readonly accountVariables = new Map<string, { version: number; items: RunVariable[] }>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly options: EngineOptions = {},
  ) {
    this.recorder = new RunRecorder(ctx.store, ctx.options.now);
    this.alerter = new Alerter(ctx, this.recorder);
  }

  /** Sessions running now. */
  get activeSessions(): number {
    return this.inFlight.size;
  }

  /** Whether a session of this check is still running. */
  isRunning(checkId: string): boolean {
    return (this.running.get(checkId) ?? 0) > 0;
  }

  /**
   * Opens a session for `check` and runs it in the background; returns the session as opened.
   * `durable`: the opening is written before this returns (a client is told about the session).
   *
   * Private locations run on their agents: each of their slots is queued for them, never run here.
   * A due time with private slots and other slots besides is ONE session (joined): it is opened
   * here with every slot, the queued runs carry its id, and each part (this service's locations,
   * each agent's result, each run no agent took) is written into it by compare-and-set; the part
   * that finishes the last slot, on whichever instance, takes the verdict and moves the alert state
   * (completeJoined). A due time of one private slot alone is recorded when its agent reports.
   */
  startSession(account: string, check: CheckRecord, { durable = false, dueMs }: { durable?: boolean; dueMs?: number } = {}): StoredSession | undefined {
    const turn = this.rotation.get(check.id) ?? 0;
    this.rotation.set(check.id, turn + 1);
    const slots = sessionLocations(check, turn);
    const privateSlots = new Set(check.privateLocations ?? []);
    const own = slots.filter((slot) => !privateSlots.has(slot));
    const theirs = slots.filter((slot) => privateSlots.has(slot));
    const due = dueMs ?? this.ctx.options.now();
    const joined = theirs.length > 0 && slots.length > 1 && this.agents !== undefined;
    if (!joined) for (const slot of theirs) this.agents?.enqueue(account, check, slot, due);
    if (own.length === 0 && !joined) return undefined;
    const session = this.recorder.openSession(account, {
      check: this.sessionCheck(check),
      runLocations: joined ? slots : own,
      ...(joined ? { privateSlots: theirs } : {}),
      durable,
    });
    // The queued runs land with the session (one group commit, with the scheduler's claim of the due time).
    if (joined) for (const slot of theirs) this.agents!.enqueue(account, check, slot, due, session.checkSessionId);
    if (own.length === 0) return session;
    this.running.set(check.id, (this.running.get(check.id) ?? 0) + 1);
    const work = this.execute(account, check, session, own)
      // A check deleted while it ran takes its session along: what fails then is no fault.
      .catch((err: unknown) => {
        // The database went away during the run: the store reported it; the session stays unfinished.
        // A session a stop abandoned ends on a closed store: nothing to report.
        if (err instanceof DatabaseUnavailable || this.abandoned) return;
        try {
          if (this.exists(account, check.id)) this.options.onError?.(err);
        } catch (e) {
          if (!(e instanceof DatabaseUnavailable)) throw e;
        }
      })
      .finally(() => {
        this.running.set(check.id, (this.running.get(check.id) ?? 1) - 1);
        this.inFlight.delete(work);
      });
    this.inFlight.add(work);
    return session;
  }

  /**
   * Records the run of `check` an agent made in private location `slot` (or the not-run result the
   * service gives a run no agent took): one session of that slot, its attempts and FINAL result,
   * then the alert state, as for the service's own runs.
   */
  async recordAgentRun(
    account: string,
    check: CheckRecord,
    slot: string,
    attempts: AttemptResult[],
    agentRun?: { dueAt: string; agentId: string | null; claims?: number },
    joined?: { sessionId: string; notRun?: boolean; with?: (tx: Transaction) => void },
  ): Promise<{ checkSessionId: string }> {
    if (joined) return this.recordJoinedPart(account, check, slot, attempts, agentRun, joined);
    const final = attempts[attempts.length - 1];
    const session = this.recorder.openSession(account, {
      check: this.sessionCheck(check),
      runLocations: [slot],
      startedAt: attempts[0].startedAt,
      ...(agentRun ? { agentRun } : {}),
    });
    const sameRegion = (check.retryStrategy as { sameRegion?: boolean } | null | undefined)?.sameRegion !== false;
    const attemptsOf = check.privateLocations ?? [];
    let resultId = '';
    for (const a of attempts) {
      // An agent runs every attempt in its own location; the label follows the service's rule.
      const runLocation = attemptsOf.length > 0 ? attemptLocation(check, slot, a.attempts, sameRegion) : slot;
      if (a !== final) {
        const stored = this.recorder.recordAttempt(account, session.checkSessionId, toAttemptInput(a, slot, runLocation));
        if (a.assets) this.recorder.storeAssets(account, check.id, stored.id, a.assets);
        continue;
      }
      const stored = this.recorder.finishLocation(account, session.checkSessionId, toAttemptInput(a, slot, runLocation));
      if (a.assets) this.recorder.storeAssets(account, check.id, stored.result.id, a.assets);
      resultId = stored.result.id;
    }
    if (!this.exists(account, check.id)) return { checkSessionId: session.checkSessionId };
    await this.alerter.onVerdict(account, check, sessionVerdict([final]), {
      runLocation: slot,
      responseTime: final.responseTime,
      startedAt: final.startedAt,
      errorMessage: final.errorMessage,
      checkResultId: resultId,
    });
    const certificate = final.apiCheckResult?.certificate;
    if (certificate) {
      this.alerter.onCertificate(account, check, certificate, { runLocation: slot, responseTime: final.responseTime, startedAt: final.startedAt, errorMessage: null, checkResultId: resultId });
    }
    return { checkSessionId: session.checkSessionId };
  }

  /**
   * Records one private slot of a joined session (an agent's result, or the not-run result of a run
   * no agent took): its attempts into the session, in one compare-and-set write; when that write
   * finishes the session's last slot, the verdict is taken here. A session gone (its check deleted)
   * or a slot already finished records nothing.
   */
  private async recordJoinedPart(
    account: string,
    check: CheckRecord,
    slot: string,
    attempts: AttemptResult[],
    agentRun: { dueAt: string; agentId: string | null; claims?: number } | undefined,
    joined: { sessionId: string; notRun?: boolean; with?: (tx: Transaction) => void },
  ): Promise<{ checkSessionId: string }> {
    // Never inside the scheduler's claim of a due time (Store.claimRuns), whose writes land together:
    // a compare-and-set write is written at once, and the session's opening must land first.
    await Promise.resolve();
    const sameRegion = (check.retryStrategy as { sameRegion?: boolean } | null | undefined)?.sameRegion !== false;
    const inputs = attempts.map((a) => toAttemptInput(a, slot, joined.notRun ? slot : attemptLocation(check, slot, a.attempts, sameRegion)));
    const outcome = this.recorder.finishSlot(account, joined.sessionId, inputs, { ...(agentRun ? { agentRun } : {}), notRun: joined.notRun === true, ...(joined.with ? { with: joined.with } : {}) });
    if (!outcome) return { checkSessionId: joined.sessionId };
    outcome.results.forEach((stored, i) => {
      const assets = attempts[i].assets;
      if (assets) this.recorder.storeAssets(account, check.id, stored.id, assets);
    });
    if (!this.exists(account, check.id)) return { checkSessionId: joined.sessionId };
    const final = attempts[attempts.length - 1];
    const certificate = final.apiCheckResult?.certificate;
    if (certificate) this.alerter.onCertificate(account, check, certificate, { runLocation: slot, responseTime: final.responseTime, startedAt: final.startedAt, errorMessage: null, checkResultId: outcome.result.id });
    if (outcome.completes) await this.completeJoined(account, check, outcome.session);
    return { checkSessionId: joined.sessionId };
  }

  /**
   * The verdict of a joined session, taken once by the writer that finished its last slot: over the
   * FINAL results of every slot that ran (a slot recorded as not run is left out; when nothing ran,
   * the not-run results judge, never a pass), honouring parallelRunFailureThreshold, then the alert
   * state moves (Alerter.onVerdict). The results written by other instances are read from the store.
   */
  private async completeJoined(account: string, check: CheckRecord, session: StoredSession): Promise<void> {
    const finals = session.resultIds
      .map((id) => this.ctx.store.get<CheckResult & Record<string, unknown>>(account, RUN_COLL.checkResults, id))
      .filter((r): r is CheckResult & Record<string, unknown> => r !== undefined && r.resultType === 'FINAL');
    if (finals.length === 0) return;
    const slotOf = new Map(Object.entries(session.sequences).map(([slot, seq]) => [seq, slot]));
    const skipped = new Set(session.notRunLocations ?? []);
    const ran = finals.filter((r) => !skipped.has(slotOf.get(r.sequenceId ?? '') ?? r.runLocation));
    const judged = ran.length > 0 ? ran : finals;
    const threshold = (check.alertSettings as { parallelRunFailureThreshold?: { enabled?: boolean; percentage?: number } } | undefined)?.parallelRunFailureThreshold;
    const verdict = sessionVerdict(judged, check.runParallel ? threshold : undefined);
    // The alert tells about a failing location when there is one.
    const worst = judged.find((r) => r.hasFailures || r.hasErrors) ?? judged[0];
    const failed = worst.hasFailures || worst.hasErrors;
    await this.alerter.onVerdict(account, check, verdict, {
      runLocation: slotOf.get(worst.sequenceId ?? '') ?? worst.runLocation,
      responseTime: worst.responseTime,
      startedAt: worst.startedAt,
      errorMessage: failed ? rawErrorMessage({ ...worst, shouldFail: session.shouldFail, maxResponseTime: session.maxResponseTime, maxPacketLossThreshold: session.maxPacketLossThreshold ?? null }) : null,
      checkResultId: worst.id,
    });
  }

  /** The check as a session keeps it. */
  private sessionCheck(check: CheckRecord) {
    return {
      id: check.id,
      name: check.name,
      checkType: check.checkType,
      shouldFail: check.shouldFail === true,
      maxResponseTime: typeof check.maxResponseTime === 'number' ? check.maxResponseTime : null,
      ...(check.checkType === 'ICMP' ? { maxPacketLossThreshold: check.maxPacketLossThreshold === undefined ? 20 : (check.maxPacketLossThreshold as number | null) } : {}),
    };
  }

  private exists(account: string, checkId: string): boolean {
    return this.ctx.store.get(account, COLL.checks, checkId) !== undefined;
  }

  /** Resolves once every session started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /**
   * Waits for the sessions under way until they finish, `graceMs` passes or `cut` aborts, and
   * returns how many were left. Those are abandoned: their sessions stay unfinished (they read as
   * TIMED_OUT once the session timeout passes, as after a kill) and whatever they do later is
   * dropped, since the store is about to close.
   */
  async settle(graceMs: number, cut?: AbortSignal): Promise<number> {
    if (this.inFlight.size > 0 && graceMs > 0 && !cut?.aborted) {
      let timer: NodeJS.Timeout | undefined;
      let onCut: (() => void) | undefined;
      const stop = new Promise<void>((resolve) => {
        // No timer without a bound (a timer of Infinity fires at once): only `cut` ends the wait.
        if (Number.isFinite(graceMs)) timer = setTimeout(resolve, graceMs);
        onCut = resolve;
        cut?.addEventListener('abort', onCut, { once: true });
      });
      try {
        // allSettled: a session whose failure could not be reported does not end the wait for the others.
        const drained = async () => {
          while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
        };
        await Promise.race([drained(), stop]);
      } finally {
        clearTimeout(timer);
        if (onCut) cut?.removeEventListener('abort', onCut);
      }
    }
    if (this.inFlight.size > 0) this.abandoned = true;
    return this.inFlight.size;
  }

  /**
   * An API check with the scripts of the snippets it names (setupSnippetId, tearDownSnippetId)
   * where it has no script of its own (localSetupScript, localTearDownScript). Read at each run:
   * a changed snippet applies to the next run. Only a run that executes a script (a multi-step or
   * browser check, an API check with a setup or teardown script) gets the variables: the others
   * neither read them nor carry them (a secret goes nowhere it is not used).
   */
  runnable(account: string, check: CheckRecord): CheckRecord {
    if (check.checkType === 'MULTI_STEP' || check.checkType === 'BROWSER') return { ...check, environmentVariables: this.runVariables(account, check) };
    if (check.checkType !== 'API') return { ...check, environmentVariables: [] };
    const script = (id: unknown) =>
      typeof id === 'number' || typeof id === 'string' ? (this.ctx.store.get<{ id: number; script?: string }>(account, COLL.snippets, id)?.script ?? null) : null;
    const own = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : null);
    const localSetupScript = own(check.localSetupScript) ?? own(script(check.setupSnippetId));
    const localTearDownScript = own(check.localTearDownScript) ?? own(script(check.tearDownSnippetId));
    const scripted = localSetupScript !== null || localTearDownScript !== null;
    return { ...check, environmentVariables: scripted ? this.runVariables(account, check) : [], localSetupScript, localTearDownScript };
  }

  /**
   * The variables a run sees (a script's `process.env`): see runVariables. The account's list is
   * kept per account while the store's version of the variables kind is unchanged (any write of a
   * variable, by any instance on a shared database, changes it).
   */
  runVariables(account: string, check: CheckRecord): RunVariable[] {
    const version = this.ctx.store.version(COLL.variables);
    let cached = this.accountVariables.get(account);
    if (!cached || cached.version !== version) {
      cached = { version, items: runVariables(this.ctx.store.list(account, COLL.variables), []) };
      this.accountVariables.set(account, cached);
    }
    return Array.isArray(check.environmentVariables) && check.environmentVariables.length > 0 ? runVariables(cached.items, check.environmentVariables) : cached.items;
  }

  /** Runs `locations` of `session` (all of it, or this service's part of a joined session). */
  private async execute(account: string, check: CheckRecord, session: StoredSession, locations: string[]): Promise<void> {
    const joined = session.privateSlots !== undefined;
    // A joined session is written by compare-and-set, at once: never inside the scheduler's claim
    // of the due time (Store.claimRuns), with which the session's opening lands first.
    if (joined) await Promise.resolve();
    // Each location's FINAL attempt and the id it was stored under, in the order they finished.
    const finals: Array<{ location: string; result: AttemptResult; resultId: string }> = [];
    // A joined session: the session as this part's last write left it, when that write finished it.
    let completed: StoredSession | undefined;
    const finish = (location: string, result: AttemptResult, runLocation: string) => {
      const stored = this.recorder.finishLocation(account, session.checkSessionId, toAttemptInput(result, location, runLocation));
      if (stored.completes) completed = stored.session;
      if (result.assets) this.recorder.storeAssets(account, check.id, stored.result.id, result.assets);
      finals.push({ location, result, resultId: stored.result.id });
      this.ctx.metrics?.run({ checkType: check.checkType, location: runLocation, failed: result.hasFailures || result.hasErrors, degraded: result.isDegraded === true, responseTimeMs: result.responseTime });
    };
    if (!EXECUTED.has(check.checkType)) {
      const reason = NOT_EXECUTED[check.checkType as keyof typeof NOT_EXECUTED] ?? `checks of type ${check.checkType} are not executed by this service`;
      for (const location of locations) {
        finish(location, notExecuted(reason), location);
      }
    } else {
      this.recorder.markExecuting(account, session.checkSessionId);
      const sameRegion = (check.retryStrategy as { sameRegion?: boolean } | null | undefined)?.sameRegion !== false;
      const timeScale = this.ctx.options.timeScale;
      await Promise.all(
        locations.map(async (location) => {
          let finished = false;
          try {
            await runCheck(this.runnable(account, check) as Parameters<typeof runCheck>[0], {
              ...this.options.runner,
              guard: this.ctx.policy,
              // Script runs are shared fairly between accounts; without the sandbox they are refused
              // unless the service was started with --unsafe-scripts.
              account,
              scripts: { allowUnsandboxed: this.ctx.options.unsafeScripts },
              maxWaitMs: SERVICE_MAX_WAIT_MS,
              sleep: (ms) => delay(ms / timeScale),
              onAttempt: (a) => {
                const runLocation = attemptLocation(check, location, a.attempts, sameRegion);
                if (a.resultType === 'ATTEMPT') {
                  const stored = this.recorder.recordAttempt(account, session.checkSessionId, toAttemptInput(a, location, runLocation));
                  if (a.assets) this.recorder.storeAssets(account, check.id, stored.id, a.assets);
                  return;
                }
                finish(location, a, runLocation);
                finished = true;
              },
            });
          } catch (err) {
            // A stored check the runner cannot read is a fault of this service: the location
            // still finishes, with hasErrors, so that the session ends instead of timing out.
            // The database went away while recording: nothing to finish now (the store reported it).
            if (finished || err instanceof DatabaseUnavailable) throw err;
            finish(location, notExecuted(`internal runner error: ${err instanceof Error ? err.message : String(err)}`), location);
            this.options.onError?.(err);
          }
        }),
      );
    }
    if (!this.exists(account, check.id)) return;
    if (joined) {
      // The certificate seen here; the verdict is taken by the part that finishes the session.
      const seen = finals.find((f) => f.result.apiCheckResult?.certificate);
      if (seen) this.alerter.onCertificate(account, check, seen.result.apiCheckResult!.certificate!, { runLocation: seen.location, responseTime: seen.result.responseTime, startedAt: seen.result.startedAt, errorMessage: null, checkResultId: seen.resultId });
      if (completed) await this.completeJoined(account, check, completed);
      return;
    }
    const threshold = (check.alertSettings as { parallelRunFailureThreshold?: { enabled?: boolean; percentage?: number } } | undefined)
      ?.parallelRunFailureThreshold;
    const verdict: SessionVerdict = sessionVerdict(
      finals.map((f) => f.result),
      check.runParallel ? threshold : undefined,
    );
    // The alert tells about a failing location when there is one.
    const worst = finals.find((f) => f.result.hasFailures || f.result.hasErrors) ?? finals[0];
    await this.alerter.onVerdict(account, check, verdict, {
      runLocation: worst.location,
      responseTime: worst.result.responseTime,
      startedAt: worst.result.startedAt,
      errorMessage: worst.result.errorMessage,
      checkResultId: worst.resultId,
    });
    // HTTPS checks: the certificate seen, for the channels that watch its expiry.
    const seen = finals.find((f) => f.result.apiCheckResult?.certificate);
    if (seen) {
      this.alerter.onCertificate(account, check, seen.result.apiCheckResult!.certificate!, {
        runLocation: seen.location,
        responseTime: seen.result.responseTime,
        startedAt: seen.result.startedAt,
        errorMessage: null,
        checkResultId: seen.resultId,
      });
    }
  }
}

/** The recorder's view of one runner attempt. */
export function toAttemptInput(a: AttemptResult, location: string, runLocation: string): AttemptInput {
  return {
    location,
    runLocation,
    startedAt: a.startedAt,
    stoppedAt: a.stoppedAt,
    responseTime: a.responseTime,
    hasFailures: a.hasFailures,
    hasErrors: a.hasErrors,
    isDegraded: a.isDegraded,
    overMaxResponseTime: a.overMaxResponseTime,
    apiCheckResult: a.apiCheckResult,
    multiStepCheckResult: a.multiStepCheckResult,
    browserCheckResult: a.browserCheckResult,
  };
}
