/**
 * Names of the run-data and status-page collections in the service store (next to COLL of
 * src/server/kinds.ts, kept apart so each area owns its names).
 */
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
  // The same collection as COLL.services: checks' triggerIncident.serviceId is checked against it.
  services: 'services',
  incidents: 'incidents',
  subscriptions: 'statusPageSubscriptions',
} as const;
