import type { ServerContext } from '../context.js';
import { STATUS_COLL } from '../rundata/collections.js';
import type { IncidentUpdate, StoredIncident } from '../status-pages/model.js';
import type { AlertState } from './alert-state.js';
import { kickMail, notifySubscribers, type NotifyCount } from '../status-pages/mails.js';
import type { Transaction } from '../store/store.js';

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
  const tx = ctx.store.begin(account);
  const { openIncidentId: left, mails } = stageIncident(ctx, tx, check, previous, next, openIncidentId);
  tx.commit();
  if (mails) kickMail(ctx, mails);
  return left;
}

/**
 * `followIncident` staged in `tx` (the alert state's own transaction, so that the incident is
 * opened or resolved by the writer whose state transition commits, and by no other): the id of
 * the incident left open, and the mails to kick once `tx` is committed.
 */
export function stageIncident(
  ctx: ServerContext,
  tx: Transaction,
  check: { name: string; triggerIncident?: TriggerIncident | null },
  previous: AlertState,
  next: AlertState,
  openIncidentId: string | null,
): { openIncidentId: string | null; mails: NotifyCount | null } {
  const trigger = check.triggerIncident;
  if (!trigger) return { openIncidentId, mails: null };
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
    if (stillOpen) return { openIncidentId: open.id, mails: null };
    // The service may have been deleted since the check was saved: then there is nothing to open.
    if (!tx.get(STATUS_COLL.services, trigger.serviceId)) return { openIncidentId: null, mails: null };
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
    return { openIncidentId: incident.id, mails };
  }
  if (previous === 'FAILING' && next !== 'FAILING' && stillOpen) {
    const resolved = update('RESOLVED', `${check.name} has recovered.`);
    const next: StoredIncident = { ...open, incidentUpdates: [...open.incidentUpdates, resolved], updated_at: now };
    tx.put(STATUS_COLL.incidents, open.id, next);
    const mails = trigger.notifySubscribers ? notifySubscribers(ctx, tx, next, resolved, ctx.options.now()) : null;
    return { openIncidentId: null, mails };
  }
  return { openIncidentId: stillOpen ? open.id : null, mails: null };
}
