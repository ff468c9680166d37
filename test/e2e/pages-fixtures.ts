/** Set-up shared by the HTML and browser tests of the public pages: pages and data made through the API. */
import { apiOk, type Served } from '../helpers/serve.js';

/** The twelve colours of a theme, one colour for all but the background and body text. */
export function theme(bodyBackgroundColor: string, bodyFontColor: string, rest: string): Record<string, string> {
  const keys = ['headerBackgroundColor', 'headerFontColor', 'titleFontColor', 'bodyFontColorMuted', 'navigationFontColor', 'linkFontColor', 'cardBackgroundColor', 'borderColor', 'primaryButtonBackgroundColor', 'primaryButtonFontColor'];
  return { bodyBackgroundColor, bodyFontColor, ...Object.fromEntries(keys.map((k) => [k, rest])) };
}

/** A service, a status page showing it, and the page's url. */
export async function statusPageWith(s: Served, url: string, extra: Record<string, unknown> = {}): Promise<{ page: any; service: any }> {
  const service = await apiOk(s, 'POST', '/v1/status-pages/services', { name: `${url} API` });
  const page = await apiOk(s, 'POST', '/v1/status-pages', { name: `${url} status`, url, cards: [{ name: 'Core', services: [{ id: service.id }] }], ...extra });
  return { page, service };
}

/** Opens an incident on a service with one update. */
export async function openIncident(s: Served, serviceId: string, name: string, description: string, severity = 'MAJOR'): Promise<any> {
  return apiOk(s, 'POST', '/v1/status-pages/incidents', { name, severity, services: [{ id: serviceId }], incidentUpdates: [{ description }] });
}

/** Adds a RESOLVED update. */
export async function resolveIncident(s: Served, incidentId: string, description = 'Fixed.'): Promise<any> {
  return apiOk(s, 'POST', `/v1/status-pages/incidents/${incidentId}/incident-updates`, { description, status: 'RESOLVED' });
}

/** A TCP check (no runs unless triggered: serve with --no-runs). */
export async function tcpCheck(s: Served, name: string, tags: string[], port: number): Promise<any> {
  return apiOk(s, 'POST', '/v1/checks/tcp', { name, tags, frequency: 10, doubleCheck: false, request: { hostname: '127.0.0.1', port } });
}

/**
 * Runs a check once (trigger) and waits for its session to end, looking every 25 ms: a TCP or
 * API run against a local target ends within milliseconds, and a look is one local request.
 */
export async function runOnce(s: Served, checkId: string): Promise<void> {
  const trigger = await apiOk(s, 'POST', '/v1/check-sessions/trigger', { target: { checkId: [checkId] } });
  const sessionId = trigger.sessions[0].checkSessionId as string;
  const end = Date.now() + 30_000;
  for (;;) {
    const session = await apiOk(s, 'GET', `/v1/check-sessions/${sessionId}`);
    if (!['STARTED', 'PROGRESS', 'PROGRESS_DEGRADED', 'PROGRESS_FAILED'].includes(session.status)) return;
    if (Date.now() > end) throw new Error(`session ${sessionId} still ${session.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
