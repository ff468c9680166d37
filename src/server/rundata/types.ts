/**
 * Stored shapes of run data (results, sessions, error groups, heartbeat events, alert
 * notifications). They are the API's response shapes (spec §2.12-2.16, decisions §5) so a read
 * is a projection, never a recomputation.
 */
// The runner's result shapes are the stored ones; the service records what the runner returns.
import type { ApiCheckResult, BrowserCheckResult, MultiStepCheckResult } from '../../runner/types.js';
export type { ApiCheckResult, BrowserCheckResult, MultiStepCheckResult };

/** Where a result counts: the last attempt of a location is FINAL, earlier ones ATTEMPT. */
export type ResultType = 'FINAL' | 'ATTEMPT';

/** Session statuses of spec §3 / decisions §5.2. */
export type SessionStatus =
  | 'STARTED'
  | 'PROGRESS'
  | 'PROGRESS_DEGRADED'
  | 'PROGRESS_FAILED'
  | 'FAILED'
  | 'DEGRADED'
  | 'PASSED'
  | 'TIMED_OUT';

/** A stored check result (spec §2.15). */
export interface CheckResult {
  id: string;
  name: string;
  checkId: string;
  resultType: ResultType;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  overMaxResponseTime: boolean | null;
  runLocation: string;
  startedAt: string;
  stoppedAt: string | null;
  created_at: string;
  responseTime: number;
  apiCheckResult: ApiCheckResult | null;
  browserCheckResult: BrowserCheckResult | null;
  multiStepCheckResult: MultiStepCheckResult | null;
  checkRunId: number;
  attempts: number;
  sequenceId: string | null;
}

/**
 * One file of a result (a failed browser check's screenshot or trace), stored apart from the
 * result under the id `<resultId>/<name>`, its bytes as base64; expires with the run data.
 */
export interface StoredAsset {
  checkId: string;
  resultId: string;
  name: string;
  type: 'screenshot' | 'trace';
  contentType: string;
  size: number;
  created_at: string;
  data: string;
}

/** What a session remembers of its check at open time, to judge results as the run saw them. */
export interface SessionCheckSnapshot {
  id: string;
  name: string;
  checkType: string;
  shouldFail: boolean;
  maxResponseTime: number | null;
  /** ICMP monitors: the packet loss (%) from which a run fails; absent for other types. */
  maxPacketLossThreshold?: number | null;
}

/** A stored check session; `results` and links are projected on read. */
export interface StoredSession {
  checkSessionId: string;
  checkId: string;
  checkType: string;
  name: string;
  status: SessionStatus;
  startedAt: string;
  stoppedAt: string | null;
  /** Location slots of the session, in run order. */
  runLocations: string[];
  /** Slots whose FINAL result is in. */
  finishedLocations: string[];
  /** Whether an attempt has begun executing (STARTED -> PROGRESS). */
  executing: boolean;
  /** The `sequenceId` shared by the attempts of each slot, set by its first attempt. */
  sequences: Record<string, string>;
  checkRunId: number;
  shouldFail: boolean;
  maxResponseTime: number | null;
  /** ICMP monitors: the packet loss (%) from which a run fails (sessions of other types lack it). */
  maxPacketLossThreshold?: number | null;
  /** Ids of the finished attempts, in the order they ended. */
  resultIds: string[];
  /** A private location's run: its due time and the agent that ran it (null: no agent did, not run). */
  agentRun?: { dueAt: string; agentId: string | null; claims?: number };
  /**
   * A joined session: one due time of a check run in several locations of which some are private
   * (their slots here), run by this service and by agents, each part possibly on another instance.
   * Such a session is written by compare-and-set on `rev`; absent for the other sessions.
   */
  privateSlots?: string[];
  /** Compare-and-set revision of a joined session (Transaction.expect). */
  rev?: number;
  /** Joined sessions: per private slot, its due time and the agent that ran it (null: not run). */
  agentRuns?: Record<string, { dueAt: string; agentId: string | null; claims?: number }>;
  /** Joined sessions: slots recorded as not run (no agent ran them in time); the verdict leaves them out. */
  notRunLocations?: string[];
  /** Joined sessions: when the last slot finished and the verdict was taken (once, by that writer). */
  completedAt?: string | null;
}

/** A stored error group (spec §2.12) plus the forever flag of decisions §5.4. */
export interface StoredErrorGroup {
  id: string;
  checkId: string;
  errorHash: string;
  rawErrorMessage: string | null;
  cleanedErrorMessage: string;
  firstSeen: string;
  lastSeen: string;
  archived: boolean;
  archivedForever: boolean;
}

/** Heartbeat event states (decisions §5.5). */
export type HeartbeatState = 'RECEIVED' | 'EARLY' | 'GRACE' | 'LATE' | 'FAILING';

/** A stored heartbeat event (spec §2.14). */
export interface HeartbeatEvent {
  id: string;
  checkId: string;
  state: HeartbeatState;
  timestamp: string;
  source: string;
  userAgent: string;
}

/** Where a notification stands: the reference's `AlertNotification.status`. */
export type NotificationStatus = 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE' | 'RATE_LIMITED';

/**
 * One alert sent to one channel (the reference's `AlertNotification`): IN_PROGRESS until the
 * receiver accepted it (SUCCESS) or the last attempt failed (FAILURE); RATE_LIMITED while it
 * waits after the receiver asked to slow down. `timestamp` is when it was sent.
 */
export interface AlertNotification {
  id: string;
  /** The channel's type (EMAIL, SLACK, WEBHOOK, ...). */
  type: string;
  status: NotificationStatus;
  /** The channel's configuration it was sent with, credentials masked. */
  alertConfig: Record<string, unknown>;
  /** The receiver's answer, or the last error. */
  notificationResult: string | null;
  timestamp: string | null;
  checkType: string;
  checkId: string;
  checkAlertId: string;
  alertChannelId: number;
  /** Left out when the alert has no result (a heartbeat that did not arrive). */
  checkResultId?: string;
  alertType: string;
  /** Delivery attempts made so far. */
  attempts: number;
  created_at: string;
}
