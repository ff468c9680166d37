/*
 * Names of the run-data and status-page collections in the service store (next to COLL of
 * src/server/kinds.ts, kept apart so each area owns its names).
 */
import { COLL } from '../kinds.js';
import type { IndexedKinds } from '../store/backend.js';
import { RESULTS_INDEX } from './analytics.js';

/** Collections of run data. */
export const RUN_COLL = {
  checkResults: 'checkResults',
  checkSessions: 'checkSessions',
  errorGroups: 'errorGroups',
  heartbeatEvents: 'heartbeatEvents',
  alertNotifications: 'alertNotifications',
  /** Deliveries waiting (alert notifications and mails): the persisted queue (alerts/outbox.ts). */
  outbox: 'outbox',
  checkResultAssets: 'checkResultAssets',
} as const;

/** Collections of the status-page family; incident updates live inside their incident. */
export const STATUS_COLL = {
  statusPages: 'statusPages',
  // The check routes validate triggerIncident.serviceId against this same collection.
  services: COLL.services,
  incidents: 'incidents',
  subscriptions: 'statusPageSubscriptions',
  /** Per address (id: sha256 of it, lower case): its subscriptions and mails of the hour (status-pages/subscriptions.ts). */
  subscribers: 'statusPageSubscribers',
  /** Per page (id: the page's): how many subscriptions it has. */
  subscriptionTallies: 'statusPageSubscriptionTallies',
  /** Incident mails to many subscribers, worked off in chunks (status-pages/fanout.ts). */
  mailJobs: 'subscriberMailJobs',
} as const;

/** Collections of the private locations' work (agents/queue.ts). */
export const AGENT_COLL = {
  /** Queued and claimed runs, indexed by location id and by when they may be taken (leased). */
  runs: 'privateLocationRuns',
  /** The agents each location has seen: version, host name, last contact (per account). */
  agents: 'privateLocationAgents',
  /** Per location, per minute and instance: queue size, oldest waiting run, runs done (metrics). */
  samples: 'privateLocationSamples',
} as const;

/**
 * Run data as the store indexes it: by check and time, read by queries (never held whole in
 * memory on a database). Results, sessions, heartbeat events and alert notifications expire after
 * the retention period (the assets of results with them); error groups never do, so they keep their first and last seen. Results
 * keep what analytics reads as their summary.
 */
export const RUN_INDEX = {
  [RUN_COLL.checkResults]: RESULTS_INDEX,
  [RUN_COLL.checkSessions]: { check: 'checkId', time: 'startedAt', expires: true },
  [RUN_COLL.heartbeatEvents]: { check: 'checkId', time: 'timestamp', expires: true },
  // A notification not delivered yet outlives the retention (its row in the outbox too).
  [RUN_COLL.alertNotifications]: { check: 'checkId', time: 'created_at', expires: true, keepWhile: { field: 'status', values: ['IN_PROGRESS', 'RATE_LIMITED'] } },
  // Indexed by when each delivery is due: the sender leases the due ones (Store.lease).
  [RUN_COLL.outbox]: { check: 'checkId', time: 'dueAt', expires: false },
  // Leased like the outbox: one taker per job across instances (status-pages/fanout.ts).
  [STATUS_COLL.mailJobs]: { check: 'incidentId', time: 'dueAt', expires: false },
  [RUN_COLL.checkResultAssets]: { check: 'checkId', time: 'created_at', expires: true },
  [RUN_COLL.errorGroups]: { check: 'checkId', time: 'lastSeen', expires: false, editable: true },
  // Runs of private locations, by location and by when they may be taken: agents lease them
  // (agents/queue.ts). Changed by leases on any instance: read from the database once written.
  [AGENT_COLL.runs]: { check: 'locationId', time: 'availableAt', expires: false, editable: true },
  [AGENT_COLL.samples]: { check: 'locationId', time: 'at', expires: true },
} as const satisfies IndexedKinds;
