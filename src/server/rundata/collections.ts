/*
 * Names of the run-data and status-page collections in the service store (next to COLL of
 * src/server/kinds.ts, kept apart so each area owns its names).
 */
import { COLL } from '../kinds.js';

/** Collections of run data. */
export const RUN_COLL = {
  checkResults: 'checkResults',
  checkSessions: 'checkSessions',
  errorGroups: 'errorGroups',
  heartbeatEvents: 'heartbeatEvents',
  alertNotifications: 'alertNotifications',
} as const;

/** Collections of the status-page family; incident updates live inside their incident. */
export const STATUS_COLL = {
  statusPages: 'statusPages',
  // The check routes validate triggerIncident.serviceId against this same collection.
  services: COLL.services,
  incidents: 'incidents',
  subscriptions: 'statusPageSubscriptions',
} as const;
