import type { ServerContext } from '../context.js';
import { STATUS_COLL } from '../rundata/collections.js';
import type { IncidentUpdate, StoredIncident } from '../status-pages/model.js';
import type { AlertState } from './alert-state.js';
import { kickMail, notifySubscribers } from '../status-pages/mails.js';

/** A check's `triggerIncident` (all five fields are required when it is set). */
export interface TriggerIncident {
  serviceId: string;
  severity: string;
  name: string;
  description: string;
  notifySubscribers: boolean;
}

/**
 * Opens and resolves a check's incident as its alert state crosses FAILING (api-decisions
 * §5.7): entering FAILING opens one on the service unless the one it opened is still open;
 * leaving FAILING adds a RESOLVED update to it. Returns the id of the incident left open, if any.
 */
export function followIncident(
  ctx: ServerContext,
  account: string,
  check: { name: string; triggerIncident?: TriggerIncident | null },
  previous: AlertState,
  next: AlertState,
  openIncidentId: string | null,
): string | null {
  const trigger = check.triggerIncident;
  if (!trigger) return openIncidentId;
  const tx = ctx.store.begin(account);
  const open = openIncidentId ? (tx.get(STATUS_COLL.incidents, openIncidentId) as StoredIncident | undefined) : undefined;
  const stillOpen = open !== undefined && open.incidentUpdates.at(-1)?.status !== 'RESOLVED';
  const now = ctx.isoNow();
  const update = (status: string, description: string): IncidentUpdate => ({
    id: tx.uuid(),
    description,
    status,
    publicIncidentUpdateDate: now,
    notifySubscribers: trigger.notifySubscribers,
    created_at: now,
    updated_at: null,
  });
  if (next === 'FAILING' && previous !== 'FAILING') {
    if (stillOpen) return open.id;
    // The service may have been deleted since the check was saved: then there is nothing to open.
    if (!tx.get(STATUS_COLL.services, trigger.serviceId)) return null;
    const incident: StoredIncident = {
      id: tx.uuid(),
      name: trigger.name,
      severity: trigger.severity,
      services: [{ id: trigger.serviceId }],
      incidentUpdates: [update('INVESTIGATING', trigger.description)],
      created_at: now,
      updated_at: null,
    };
    tx.put(STATUS_COLL.incidents, incident.id, incident);
    const mails = trigger.notifySubscribers ? notifySubscribers(ctx, tx, incident, incident.incidentUpdates[0], ctx.options.now()) : null;
    tx.commit();
    if (mails) kickMail(ctx, mails);
    return incident.id;
  }
  if (previous === 'FAILING' && next !== 'FAILING' && stillOpen) {
    const resolved = update('RESOLVED', `${check.name} has recovered.`);
    const next: StoredIncident = { ...open, incidentUpdates: [...open.incidentUpdates, resolved], updated_at: now };
    tx.put(STATUS_COLL.incidents, open.id, next);
    const mails = trigger.notifySubscribers ? notifySubscribers(ctx, tx, next, resolved, ctx.options.now()) : null;
    tx.commit();
    if (mails) kickMail(ctx, mails);
    return null;
  }
  return stillOpen ? open.id : null;
}
