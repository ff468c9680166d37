/**
 * A check's page on a dashboard (`/dashboards/{customUrl}/checks/{checkId}`): its state, its
 * response-time charts over 24 hours and 30 days, its recent runs with why each failed (when the
 * dashboard shows runs, `showCheckRunLinks`), and for a heartbeat its recent pings and its ping
 * URL (on a private dashboard only: the URL lets anyone ping). Pure rendering of what
 * figures.ts read.
 */
import type { CheckResult, HeartbeatEvent } from '../rundata/types.js';
import { html, type Html } from './html.js';
import { layout, type PageDoc } from './layout.js';
import { themeCss } from './theme.js';
import { responseChart, type Series } from './svg.js';
import { CHECK_STATE_LABEL, dashboardPath, stateOf, type CheckLike, type CheckState, type DashboardRecord } from './dashboard.js';

/** Longest text of a received value or error shown (the rest is cut with an ellipsis). */
export const MAX_SHOWN = 300;

const cut = (s: string) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN - 1)}…` : s);

/** One failed assertion of a run, as the page shows it. */
export interface FailedAssertion {
  what: string;
  comparison: string;
  expected: string;
  received: string;
}

/** Why a run failed: its first error, its failed assertions, its status code. */
export interface FailureFacts {
  error: string | null;
  assertions: FailedAssertion[];
  statusCode: number | null;
  overMaxResponseTime: boolean;
}

/** Assertions listed per run at most. */
const MAX_ASSERTIONS = 10;

/** The facts of a result that tell why it failed (or how it went), bounded in size. */
export function failureFacts(r: CheckResult): FailureFacts {
  const api = r.apiCheckResult;
  const error = api?.requestError ?? r.multiStepCheckResult?.errors?.[0] ?? r.browserCheckResult?.errors?.[0] ?? null;
  const assertions = (api?.assertions ?? [])
    .filter((a) => !a.passed)
    .slice(0, MAX_ASSERTIONS)
    .map((a) => ({
      what: cut(a.property ? `${a.source} ${a.property}` : a.source),
      comparison: cut(a.comparison),
      expected: cut(String(a.target ?? '')),
      received: a.actual === null || a.actual === undefined ? '(nothing)' : cut(String(a.actual)),
    }));
  const status = api && api.request?.method !== 'ICMP' && typeof api.response?.status === 'number' && api.response.status > 0 ? api.response.status : null;
  return { error: typeof error === 'string' ? cut(error) : null, assertions, statusCode: status, overMaxResponseTime: r.overMaxResponseTime === true };
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${Math.round(v)} ms`);
const utc = (iso: string) => html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>`;
const STATE_ICON: Record<CheckState, string> = { passing: '✓', degraded: '!', failing: '✕', 'no-data': '–' };

/** The state line of a check or run: icon and words, never colour alone. */
export function stateLine(state: CheckState, tag: 'p' | 'span' = 'p'): Html {
  const inner = html`<span aria-hidden="true">${STATE_ICON[state]} </span>${CHECK_STATE_LABEL[state]}`;
  return tag === 'p' ? html`<p class="state s-${state}">${inner}</p>` : html`<span class="state s-${state}">${inner}</span>`;
}

/** Why a run failed, in words and a small table of its failed assertions. */
export function failureBlock(f: FailureFacts): Html {
  return html`${f.error ? html`<p class="why"><strong>Error:</strong> <code>${f.error}</code></p>` : ''}
${
  f.assertions.length > 0
    ? html`<table class="asserts"><caption class="sr">Failed assertions</caption><thead><tr><th scope="col">Assertion</th><th scope="col">Expected</th><th scope="col">Received</th></tr></thead><tbody>${f.assertions.map(
        (a) => html`<tr><td>${a.what} <span class="muted">${a.comparison.toLowerCase().replace(/_/g, ' ')}</span></td><td class="expected"><code>${a.expected}</code></td><td class="received"><code>${a.received}</code></td></tr>`,
      )}</tbody></table>`
    : ''
}${f.overMaxResponseTime && !f.error && f.assertions.length === 0 ? html`<p class="why">Response time over the check's maximum.</p>` : ''}`;
}

/** Everything a check's page shows. */
export interface CheckPageModel {
  check: CheckLike;
  state: CheckState;
  day: Series;
  month: Series;
  /** Newest FINAL results, newest first (empty when the dashboard does not show runs). */
  runs: CheckResult[];
  showRuns: boolean;
  /** Heartbeat checks: the newest pings, and the ping URL when the visitor may see it. */
  heartbeat?: { pings: HeartbeatEvent[]; pingUrl: string | null };
}

function runRow(d: DashboardRecord, r: CheckResult): Html {
  const state = stateOf(r);
  const f = failureFacts(r);
  const failed = state === 'failing';
  return html`<tr class="run r-${state}"><td>${utc(r.startedAt)}</td><td>${stateLine(state, 'span')}</td><td>${r.runLocation}</td><td>${ms(r.responseTime)}</td><td>${f.statusCode ?? '–'}</td>
<td>${failed ? failureBlock(f) : ''}${d.showCheckRunLinks === true ? html`<a href="${dashboardPath(d.customUrl, `/runs/${encodeURIComponent(r.id)}`)}">Run details<span class="sr"> of ${r.startedAt}</span></a>` : ''}</td></tr>`;
}

function pingRow(p: HeartbeatEvent): Html {
  return html`<tr><td>${utc(p.timestamp)}</td><td>${p.state.charAt(0) + p.state.slice(1).toLowerCase()}</td></tr>`;
}

/** The two charts of a check (24 hours, 30 days). */
export function checkCharts(m: { check: { name: string }; day: Series; month: Series }, size: 'large' | 'small' = 'large'): Html {
  return html`<div class="charts charts-${size}">${responseChart(m.day, { title: 'Response time, last 24 hours', subject: m.check.name, unit: 'hour', size })}${responseChart(m.month, { title: 'Response time, last 30 days', subject: m.check.name, unit: 'day', size })}</div>`;
}

/** The HTML of a check's page. */
export function renderCheckPage(d: DashboardRecord, m: CheckPageModel, backHref: string): PageDoc {
  const c = m.check;
  const hb = m.heartbeat;
  const main = html`<p><a href="${backHref}">← ${d.header || d.customUrl}</a></p>
<h1>${c.name}</h1>
${stateLine(m.state)}
<section aria-labelledby="rt-h"><h2 id="rt-h">Response time</h2>${checkCharts(m)}</section>
${
  hb
    ? html`<section aria-labelledby="hb-h"><h2 id="hb-h">Heartbeat</h2>
${hb.pingUrl ? html`<p>Ping URL: <code class="ping-url">${hb.pingUrl}</code></p><p class="muted">Send a GET or POST to it when the job ends; a missing ping fails the check.</p>` : html`<p class="muted">The ping URL is shown on private dashboards only: anyone who knows it can ping.</p>`}
<h3>Recent pings</h3>
${hb.pings.length > 0 ? html`<table class="runs"><thead><tr><th scope="col">Time</th><th scope="col">State</th></tr></thead><tbody>${hb.pings.map(pingRow)}</tbody></table>` : html`<p class="muted">No pings yet.</p>`}
</section>`
    : ''
}
${
  m.showRuns
    ? html`<section aria-labelledby="runs-h"><h2 id="runs-h">Recent runs</h2>
${m.runs.length > 0 ? html`<table class="runs"><thead><tr><th scope="col">Time</th><th scope="col">State</th><th scope="col">Location</th><th scope="col">Response time</th><th scope="col">Status code</th><th scope="col">Why</th></tr></thead><tbody>${m.runs.map((r) => runRow(d, r))}</tbody></table>` : html`<p class="muted">No runs yet.</p>`}
</section>`
    : ''
}`;
  return layout({
    title: `${c.name}: ${CHECK_STATE_LABEL[m.state]}`,
    themeCss: themeCss(null, 'AUTO'),
    customCss: d.customCSS || undefined,
    favicon: d.favicon,
    width: d.width === '960PX' || d.width === '960px' ? '960px' : undefined,
    header: d.showHeader === false ? html`` : html`<header class="top"><div class="inner"><a href="${backHref}" class="site">${d.header || d.customUrl}</a></div></header>`,
    main,
  });
}
