/**
 * The write side of run data: what the scheduler calls as checks run. Every call is one
 * transaction, so a recorded result, its session status and its error group change together. The
 * transactions go through the store's group commit (`commitDeferred`): visible at once, written
 * with the others of the last few milliseconds in one database transaction; a session's own
 * records are read back from the store's memory, not from the database. Session status moves by
 * session-status.ts, error groups by error-groups.ts.
 */
import { revisionOf, StaleWrite, type Store, type StoredRecord, type Transaction } from '../store/store.js';
import { RUN_COLL } from './collections.js';
import { cleanErrorMessage, errorHash, rawErrorMessage } from './error-message.js';
import { recordOccurrence } from './error-groups.js';
import { countedOutcomes, nextSessionStatus, stoppedAtFor } from './session-status.js';
import type { RunAsset } from '../../runner/types.js';
import type {
  AlertNotification,
  ApiCheckResult,
  BrowserCheckResult,
  CheckResult,
  HeartbeatEvent,
  MultiStepCheckResult,
  SessionCheckSnapshot,
  StoredAsset,
  StoredErrorGroup,
  StoredSession,
} from './types.js';

/** Results of one check whose assets are kept: older ones lose theirs (their results stay). */
export const ASSET_RESULTS_PER_CHECK = 10;
/** Files of a check's kept assets read at most when a result stores new ones. */
const ASSET_FILES_READ = 10_000;
/** Error groups of a check looked through at most for the group of a new failure (the most recently seen first). */
export const ERROR_GROUPS_READ = 10_000;

/** Service-wide integer counter of `checkRunId` (one per session). */
export const CHECK_RUN_COUNTER = 'checkRunId';

/** On a shared database, `checkRunId`s are taken this many at a time (one round trip per block). */
export const CHECK_RUN_ID_BLOCK = 64;

/**
 * Compare-and-set writes of a joined session are tried this many times: each failure means
 * another writer of the session (another part of it) committed in between, and a session has few
 * parts, so this is never reached but by a fault.
 */
export const JOINED_WRITE_ATTEMPTS = 32;

/** What the scheduler knows when a session starts. */
export interface OpenSessionInput {
  check: SessionCheckSnapshot;
  /** Location slots, in run order (decisions §5.1); at least one (`local` when none). */
  runLocations: string[];
  /** Defaults to now. */
  startedAt?: string;
  /** Written durably before returning (a session a client is told about), not group-committed. */
  durable?: boolean;
  /** A private location's run: its due time and the agent that ran it (kept, not shown by the API). */
  agentRun?: { dueAt: string; agentId: string | null; claims?: number };
  /**
   * The slots of `runLocations` that agents run (private locations), for a session that joins them
   * with other slots: the session is then written by compare-and-set (see finishSlot).
   */
  privateSlots?: string[];
}

/** One ended attempt, as the evaluator measured it. */
export interface AttemptInput {
  /** The session slot this attempt belongs to (one of the session's runLocations). */
  location: string;
  /** Where the attempt ran, when a retry moved away from the slot (`sameRegion` false); default = location. */
  runLocation?: string;
  startedAt: string;
  stoppedAt: string | null;
  responseTime: number;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  overMaxResponseTime: boolean | null;
  apiCheckResult: ApiCheckResult | null;
  multiStepCheckResult: MultiStepCheckResult | null;
  browserCheckResult?: BrowserCheckResult | null;
}

/** What finishing a location changed. */
export interface FinishOutcome {
  result: CheckResult;
  session: StoredSession;
  /** The error group the result fed, when it failed. */
  errorGroup?: StoredErrorGroup;
  /**
   * Joined sessions: this write finished the session's last slot, so its writer takes the verdict.
   * Decided by the compare-and-set of the session: true for exactly one writer, on any instance.
   */
  completes?: boolean;
}

/** How one slot of a joined session is recorded (finishSlot). */
export interface SlotInput {
  /** The slot was not run (no agent ran it in time): it finishes, and the verdict leaves it out. */
  notRun?: boolean;
  /** A private slot's due time and the agent that ran it (null: none). */
  agentRun?: { dueAt: string; agentId: string | null; claims?: number };
  /** More writes of the same commit (the queued run's removal): they land with the slot, or neither does. */
  with?: (tx: Transaction) => void;
}

/** Input of an alert notification; id and `created_at` are assigned. */
export type NotificationInput = Omit<AlertNotification, 'id' | 'created_at'>;

/** Input of a heartbeat event; the id is assigned. */
export type HeartbeatEventInput = Omit<HeartbeatEvent, 'id'>;

const asRecord = (v: object) => v as unknown as StoredRecord;

/** Records runs, heartbeat events and alert notifications in the service store. */
export class RunRecorder {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /** Opens a session in STARTED with a new `checkRunId`. */
  openSession(account: string, input: OpenSessionInput): StoredSession {
    if (input.runLocations.length === 0) throw new Error('a session needs at least one location');
    const tx = this.store.begin(account);
    const session: StoredSession = {
      checkSessionId: tx.uuid(),
      checkId: input.check.id,
      checkType: input.check.checkType,
      name: input.check.name,
      status: 'STARTED',
      startedAt: input.startedAt ?? new Date(this.now()).toISOString(),
      stoppedAt: null,
      runLocations: [...input.runLocations],
      finishedLocations: [],
      executing: false,
      sequences: {},
      checkRunId: tx.nextInt(CHECK_RUN_COUNTER, CHECK_RUN_ID_BLOCK),
      shouldFail: input.check.shouldFail,
      maxResponseTime: input.check.maxResponseTime,
      ...(input.check.maxPacketLossThreshold !== undefined ? { maxPacketLossThreshold: input.check.maxPacketLossThreshold } : {}),
      resultIds: [],
      ...(input.agentRun ? { agentRun: input.agentRun } : {}),
      ...(input.privateSlots && input.privateSlots.length > 0 ? { privateSlots: [...input.privateSlots], rev: 0, agentRuns: {}, notRunLocations: [], completedAt: null } : {}),
    };
    tx.put(RUN_COLL.checkSessions, session.checkSessionId, asRecord(session));
    if (input.durable) tx.commit();
    else tx.commitDeferred();
    return session;
  }

  /** Marks that execution began (STARTED -> PROGRESS); a no-op on a later status. */
  markExecuting(account: string, sessionId: string): StoredSession {
    if (this.isJoined(account, sessionId)) {
      return this.writeJoined(account, sessionId, (tx, session) => (session.executing ? undefined : this.advance(tx, { ...session, executing: true }))) ?? this.mustSession(this.store.begin(account), sessionId);
    }
    const tx = this.store.begin(account);
    const session = this.mustSession(tx, sessionId);
    const next = this.advance(tx, { ...session, executing: true });
    tx.commitDeferred();
    return next;
  }

  /** Stores an ATTEMPT result (a retry follows at the same slot). */
  recordAttempt(account: string, sessionId: string, attempt: AttemptInput): CheckResult {
    if (this.isJoined(account, sessionId)) {
      const result = this.writeJoined(account, sessionId, (tx, session) => {
        if (session.finishedLocations.includes(attempt.location)) throw new Error(`location ${attempt.location} of session ${sessionId} already finished`);
        const added = this.addResult(tx, session, attempt, 'ATTEMPT');
        this.advance(tx, added.session);
        return added.result;
      });
      if (!result) throw new Error(`unknown check session ${sessionId}`);
      return result;
    }
    const tx = this.store.begin(account);
    const session = this.mustSession(tx, sessionId);
    const { result, session: withResult } = this.addResult(tx, session, attempt, 'ATTEMPT');
    this.advance(tx, withResult);
    tx.commitDeferred();
    return result;
  }

  /**
   * Stores the FINAL result of a slot, moves the session status and, for a failing result,
   * feeds the check's error group. A slot finishes once; a second call throws.
   */
  finishLocation(account: string, sessionId: string, attempt: AttemptInput): FinishOutcome {
    if (this.isJoined(account, sessionId)) {
      const outcome = this.finishSlot(account, sessionId, [attempt]);
      if (!outcome) throw new Error(`location ${attempt.location} of session ${sessionId} already finished`);
      return outcome;
    }
    const tx = this.store.begin(account);
    const session = this.mustSession(tx, sessionId);
    if (session.finishedLocations.includes(attempt.location)) throw new Error(`location ${attempt.location} of session ${sessionId} already finished`);
    const added = this.addResult(tx, session, attempt, 'FINAL');
    const next = this.advance(tx, { ...added.session, finishedLocations: [...session.finishedLocations, attempt.location] });
    const errorGroup = added.result.hasFailures ? this.feedErrorGroup(tx, session, added.result) : undefined;
    tx.commitDeferred();
    return { result: added.result, session: next, errorGroup };
  }

  /**
   * Records one slot of a joined session whole: its attempts in order, the last one FINAL, in one
   * compare-and-set write of the session (read as the database holds it now: another part may have
   * been written by another instance). The write that finishes the session's last slot sets
   * `completedAt` and answers `completes`: the store lets exactly one writer do so, whichever
   * instance each part finished on. Undefined when the session is gone (its check deleted, or past
   * the retention) or the slot already finished (then nothing is written).
   */
  finishSlot(account: string, sessionId: string, attempts: readonly AttemptInput[], slot: SlotInput = {}): (FinishOutcome & { results: CheckResult[] }) | undefined {
    if (attempts.length === 0) throw new Error('a slot finishes with at least one attempt');
    const location = attempts[attempts.length - 1].location;
    const outcome = this.writeJoined(account, sessionId, (tx, session) => {
      if (session.finishedLocations.includes(location)) return undefined;
      slot.with?.(tx);
      let current = session;
      const results: CheckResult[] = [];
      attempts.forEach((a, i) => {
        const added = this.addResult(tx, current, a, i === attempts.length - 1 ? 'FINAL' : 'ATTEMPT');
        current = added.session;
        results.push(added.result);
      });
      const finishedLocations = [...session.finishedLocations, location];
      const completes = session.runLocations.every((l) => finishedLocations.includes(l)) && !session.completedAt;
      const next = this.advance(tx, {
        ...current,
        finishedLocations,
        ...(slot.agentRun ? { agentRuns: { ...(session.agentRuns ?? {}), [location]: slot.agentRun } } : {}),
        ...(slot.notRun ? { notRunLocations: [...(session.notRunLocations ?? []), location] } : {}),
        ...(completes ? { completedAt: new Date(this.now()).toISOString() } : {}),
      });
      const result = results[results.length - 1];
      const errorGroup = result.hasFailures ? this.feedErrorGroup(tx, session, result) : undefined;
      return { result, results, session: next, errorGroup, completes };
    });
    // Nothing recorded (the session is gone, or the slot finished already): the other writes still land.
    if (!outcome && slot.with) {
      const tx = this.store.begin(account);
      slot.with(tx);
      tx.commit();
    }
    return outcome;
  }

  /** Whether a session is joined (written by compare-and-set); its mark never changes. */
  private isJoined(account: string, sessionId: string): boolean {
    const s = this.store.get(account, RUN_COLL.checkSessions, sessionId) as unknown as StoredSession | undefined;
    return s?.privateSlots !== undefined;
  }

  /**
   * One write of a joined session: `stage` gets the session with its next revision (what it puts
   * carries it) and answers undefined to write nothing, as for a session that is gone. On a shared
   * database (several instances) the session is read as the database holds it and committed on
   * the condition that nobody wrote it meanwhile, otherwise read and staged again; since other
   * instances write the session too, this instance then reads it from the database, not from what
   * it wrote last.
   */
  private writeJoined<T>(account: string, sessionId: string, stage: (tx: Transaction, session: StoredSession) => T | undefined): T | undefined {
    if (!this.store.shared) {
      // One writer (this process): a synchronous read-modify-write is atomic, and it goes through
      // the group commit as the other sessions' writes do. The revision moves all the same.
      const tx = this.store.begin(account);
      const current = tx.get(RUN_COLL.checkSessions, sessionId) as unknown as StoredSession | undefined;
      if (!current) return undefined;
      const out = stage(tx, { ...current, rev: revisionOf(current) + 1 });
      if (out !== undefined) tx.commitDeferred();
      return out;
    }
    for (let attempt = 1; ; attempt++) {
      const current = this.store.getLatest(account, RUN_COLL.checkSessions, sessionId) as unknown as StoredSession | undefined;
      if (!current) return undefined;
      const rev = revisionOf(current);
      const tx = this.store.begin(account);
      const out = stage(tx, { ...current, rev: rev + 1 });
      if (out === undefined) return undefined;
      tx.expect(RUN_COLL.checkSessions, sessionId, rev);
      try {
        tx.commit();
        return out;
      } catch (err) {
        if (!(err instanceof StaleWrite) || attempt >= JOINED_WRITE_ATTEMPTS) throw err;
      } finally {
        this.store.uncache(account, RUN_COLL.checkSessions, sessionId);
      }
    }
  }

  /** Stores one heartbeat event. */
  recordHeartbeatEvent(account: string, input: HeartbeatEventInput): HeartbeatEvent {
    const tx = this.store.begin(account);
    const event: HeartbeatEvent = { id: tx.uuid(), ...input };
    tx.put(RUN_COLL.heartbeatEvents, event.id, asRecord(event));
    tx.commitDeferred();
    return event;
  }

  /** Stores one alert delivery or outbox entry. */
  recordNotification(account: string, input: NotificationInput): AlertNotification {
    const tx = this.store.begin(account);
    const notification: AlertNotification = { id: tx.uuid(), ...input, created_at: new Date(this.now()).toISOString() };
    tx.put(RUN_COLL.alertNotifications, notification.id, asRecord(notification));
    tx.commitDeferred();
    return notification;
  }

  /**
   * Stores the files of a result (committed at once, not group-committed: they are large and
   * read rarely), and drops those of the check's results older than the last
   * ASSET_RESULTS_PER_CHECK that have any, so that a check failing every minute keeps a bounded
   * amount. Bounded per run by the runner (MAX_ASSET_BYTES).
   */
  storeAssets(account: string, checkId: string, resultId: string, assets: readonly RunAsset[]): void {
    if (assets.length === 0) return;
    const kind = RUN_COLL.checkResultAssets;
    // Newest first, bounded: the kept results hold far fewer files (older ones go at a later run).
    const held = this.store.queryEntries<{ resultId: string }>(account, kind, { checkId, order: 'time-desc', fields: ['resultId'], limit: ASSET_FILES_READ });
    const keep = new Set<string>([resultId]);
    const drop: string[] = [];
    for (const [id, r] of held) {
      if (keep.has(r.resultId)) continue;
      if (keep.size < ASSET_RESULTS_PER_CHECK) keep.add(r.resultId);
      else drop.push(id);
    }
    const tx = this.store.begin(account);
    for (const id of drop) tx.delete(kind, id);
    const created_at = new Date(this.now()).toISOString();
    for (const a of assets) {
      const asset: StoredAsset = { checkId, resultId, name: a.name, type: a.type, contentType: a.contentType, size: a.data.length, created_at, data: a.data.toString('base64') };
      tx.put(kind, `${resultId}/${a.name}`, asRecord(asset));
    }
    tx.commit();
  }

  private mustSession(tx: Transaction, sessionId: string): StoredSession {
    const s = tx.get(RUN_COLL.checkSessions, sessionId) as unknown as StoredSession | undefined;
    if (!s) throw new Error(`unknown check session ${sessionId}`);
    return s;
  }

  private addResult(tx: Transaction, session: StoredSession, a: AttemptInput, resultType: CheckResult['resultType']) {
    if (!session.runLocations.includes(a.location)) throw new Error(`location ${a.location} is not a slot of session ${session.checkSessionId}`);
    const sequenceId = session.sequences[a.location] ?? tx.uuid();
    // Earlier attempts of the slot are the results already sharing its sequence.
    const attempts = session.resultIds.filter((id) => (tx.get(RUN_COLL.checkResults, id) as { sequenceId?: string } | undefined)?.sequenceId === sequenceId).length;
    const result: CheckResult = {
      id: tx.uuid(),
      name: session.name,
      checkId: session.checkId,
      resultType,
      hasFailures: a.hasFailures,
      hasErrors: a.hasErrors,
      isDegraded: a.isDegraded,
      overMaxResponseTime: a.overMaxResponseTime,
      runLocation: a.runLocation ?? a.location,
      startedAt: a.startedAt,
      stoppedAt: a.stoppedAt,
      created_at: new Date(this.now()).toISOString(),
      responseTime: a.responseTime,
      apiCheckResult: a.apiCheckResult,
      browserCheckResult: a.browserCheckResult ?? null,
      multiStepCheckResult: a.multiStepCheckResult,
      checkRunId: session.checkRunId,
      attempts,
      sequenceId,
    };
    tx.put(RUN_COLL.checkResults, result.id, asRecord(result));
    const next: StoredSession = {
      ...session,
      executing: true,
      sequences: { ...session.sequences, [a.location]: sequenceId },
      resultIds: [...session.resultIds, result.id],
    };
    return { result, session: next };
  }

  /** Recomputes the status from the session's FINAL results and stages the session. */
  private advance(tx: Transaction, session: StoredSession): StoredSession {
    const nowMs = this.now();
    const finished = session.resultIds
      .map((id) => tx.get(RUN_COLL.checkResults, id) as unknown as CheckResult)
      .filter((r) => r.resultType === 'FINAL');
    const startedAtMs = Date.parse(session.startedAt);
    const status = nextSessionStatus({
      current: session.status,
      executing: session.executing,
      locationCount: session.runLocations.length,
      finished: countedOutcomes(finished, session.sequences, session.notRunLocations),
      startedAtMs,
      nowMs,
    });
    const next: StoredSession = { ...session, status, stoppedAt: session.stoppedAt ?? stoppedAtFor(status, startedAtMs, nowMs) };
    tx.put(RUN_COLL.checkSessions, next.checkSessionId, asRecord(next));
    return next;
  }

  private feedErrorGroup(tx: Transaction, session: StoredSession, result: CheckResult): StoredErrorGroup {
    const raw = rawErrorMessage({
      ...result,
      shouldFail: session.shouldFail,
      maxResponseTime: session.maxResponseTime,
      maxPacketLossThreshold: session.maxPacketLossThreshold ?? null,
    });
    const cleaned = cleanErrorMessage(raw);
    const hash = errorHash(cleaned);
    const known = tx
      .query(RUN_COLL.errorGroups, { checkId: result.checkId, limit: ERROR_GROUPS_READ })
      .find((g) => g.errorHash === hash) as unknown as StoredErrorGroup | undefined;
    const group: StoredErrorGroup = known
      ? recordOccurrence(known, result.startedAt)
      : {
          id: tx.uuid(),
          checkId: result.checkId,
          errorHash: hash,
          rawErrorMessage: raw,
          cleanedErrorMessage: cleaned,
          firstSeen: result.startedAt,
          lastSeen: result.startedAt,
          archived: false,
          archivedForever: false,
        };
    tx.put(RUN_COLL.errorGroups, group.id, asRecord(group));
    return group;
  }
}

/**
 * Stages the removal of a check's run data (results, their assets, sessions, error groups, heartbeat events):
 * the cascade of a check delete (decisions §1.6). Notifications stay: they record what was sent.
 */
export function purgeCheckRunData(tx: Transaction, checkId: string): void {
  for (const kind of [RUN_COLL.checkResults, RUN_COLL.checkSessions, RUN_COLL.errorGroups, RUN_COLL.heartbeatEvents, RUN_COLL.checkResultAssets]) tx.deleteByCheck(kind, checkId);
}
