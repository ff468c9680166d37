/**
 * Names of the stored collections. One name per kind of record, shared by every route module
 * so that cascades (a deleted snippet clears check references, ...) name the same collection.
 */
export const COLL = {
  checks: 'checks',
  checkGroups: 'checkGroups',
  groupTriggers: 'groupTriggers',
  snippets: 'snippets',
  dashboards: 'dashboards',
  variables: 'variables',
  alertChannels: 'alertChannels',
  /** Alert subscriptions: one store behind channels' `subscriptions` and checks' `alertChannelSubscriptions`. */
  alertSubscriptions: 'alertSubscriptions',
  privateLocations: 'privateLocations',
  /** Status-page services (referenced by checks' triggerIncident.serviceId). */
  services: 'services',
  /** Maintenance windows: their tags silence the alerts of checks while one is in progress. */
  maintenanceWindows: 'maintenanceWindows',
} as const;
