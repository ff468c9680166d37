/**
 * The pictures of the public pages, drawn on the server as SVG: a response-time chart (p50 and
 * p95 per bucket), the uptime bar of a status-page service and the badges. Pure functions of
 * figures; every text goes through the escaping `html` template. Charts and bars are inline SVG
 * coloured by classes of the page's stylesheet (so light and dark follow the page's theme, and
 * the CSP needs no inline style); a badge is a standalone image with its own fixed colours.
 * Each picture has an accessible name (role="img", aria-label, <title>) and a description of
 * what it shows in words (<desc>); colour is never the only cue (p95 is dashed, a day without
 * data is a short grey bar, failures are marked in their own row).
 */
import { html, type Html } from './html.js';

/** One bucket of a check's results: FINAL runs, how many failed, p50/p95 of their response times. */
export interface Bucket {
  startMs: number;
  runs: number;
  failed: number;
  p50: number | null;
  p95: number | null;
}

/** The buckets of a window, oldest first; `bucketMs` wide, the last may still be running. */
export interface Series {
  fromMs: number;
  toMs: number;
  bucketMs: number;
  buckets: Bucket[];
  /** When the check was created: buckets ending before it are "before the check existed". */
  sinceMs: number | null;
}

const HOUR = 3_600_000;

/** Width and height of a chart's coordinate space (it scales to its box): a check's page, a dashboard card. */
const SIZES = {
  large: { W: 600, H: 200, PAD: { left: 52, right: 10, top: 12, bottom: 44 } },
  small: { W: 300, H: 150, PAD: { left: 46, right: 6, top: 10, bottom: 42 } },
};
/** The width of an uptime bar's coordinate space. */
const W = 600;

/** A round scale top at or above `max` (1, 2, 2.5 or 5 times a power of ten). */
export function niceMax(max: number): number {
  if (!(max > 0)) return 100;
  const exp = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= max) return m * exp;
  return 10 * exp;
}

const fmtMs = (v: number) => (v >= 10_000 ? `${Math.round(v / 1000)} s` : v >= 1000 ? `${(v / 1000).toFixed(1).replace(/\.0$/, '')} s` : `${Math.round(v)} ms`);
const hh = (ms: number) => `${new Date(ms).toISOString().slice(11, 13)}:00`;
const day = (ms: number) => new Date(ms).toISOString().slice(5, 10);

/** Summary figures of a series, also used in words by the description. */
export function seriesSummary(s: Series): { runs: number; failed: number; maxP95: number | null; lastP50: number | null; lastP95: number | null } {
  let runs = 0;
  let failed = 0;
  let maxP95: number | null = null;
  let last: Bucket | undefined;
  for (const b of s.buckets) {
    runs += b.runs;
    failed += b.failed;
    if (b.p95 !== null && (maxP95 === null || b.p95 > maxP95)) maxP95 = b.p95;
    if (b.runs > 0) last = b;
  }
  return { runs, failed, maxP95, lastP50: last?.p50 ?? null, lastP95: last?.p95 ?? null };
}

/** What a chart is about: shown as its title and in its accessible name. */
export interface ChartLabel {
  /** E.g. "Response time, last 24 hours". */
  title: string;
  /** The check's name (part of the accessible name: several charts share a page). */
  subject: string;
  /** The bucket unit in words: "hour" or "day". */
  unit: 'hour' | 'day';
  /** `small` on a dashboard card (default `large`). */
  size?: 'large' | 'small';
}

/** The description of a chart in words (its <desc>, and what a screen reader reads). */
export function chartDescription(s: Series, label: ChartLabel): string {
  const sum = seriesSummary(s);
  if (sum.runs === 0) return `No runs in this window: no data.`;
  const parts = [
    `p50 and p95 response time per ${label.unit}.`,
    `Latest ${label.unit} with runs: p50 ${fmtMs(sum.lastP50 ?? 0)}, p95 ${fmtMs(sum.lastP95 ?? 0)}.`,
    `Highest p95 ${fmtMs(sum.maxP95 ?? 0)}.`,
    `${sum.runs} runs, ${sum.failed} failed.`,
  ];
  const before = s.sinceMs === null ? 0 : s.buckets.filter((b) => b.startMs + s.bucketMs <= (s.sinceMs ?? 0)).length;
  if (before > 0) parts.push(`The first ${before} ${label.unit}s are before the check existed.`);
  return parts.join(' ');
}

/** A line through the buckets that have a value; a bucket without one breaks the line. */
function path(points: Array<[number, number] | null>): string {
  let d = '';
  let pen = false;
  for (const p of points) {
    if (!p) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${p[0].toFixed(1)} ${p[1].toFixed(1)}`;
    pen = true;
  }
  return d;
}

/** Charts kept drawn at most (each about 5 KiB with its key): past this the least recently drawn goes. */
export const MAX_HELD_CHARTS = 1024;

/**
 * Charts already drawn, by everything a chart is drawn from (its label, the bucket width, when the
 * check was created, and each bucket's start, runs, failures, p50 and p95): a chart whose figures
 * did not change is not drawn again, and a new result that changes a bucket's figures is a new
 * key, so a held chart never shows figures other than those read for this page.
 */
const heldCharts = new Map<string, Html>();

function chartKey(s: Series, label: ChartLabel): string {
  let k = `${label.title}\u0000${label.subject}\u0000${label.unit}\u0000${label.size ?? 'large'}\u0000${s.bucketMs}\u0000${s.sinceMs}\u0000`;
  for (const b of s.buckets) k += `${b.startMs},${b.runs},${b.failed},${b.p50},${b.p95};`;
  return k;
}

/**
 * The response-time chart of one window: p50 (solid) and p95 (dashed) per bucket, a y axis in
 * ms, the bucket times below, failed runs marked in a row under the plot, and the buckets before
 * the check existed shaded "no data". Drawn once per distinct figures (MAX_HELD_CHARTS held).
 */
export function responseChart(s: Series, label: ChartLabel): Html {
  const key = chartKey(s, label);
  const held = heldCharts.get(key);
  if (held) {
    // Most recently drawn last.
    heldCharts.delete(key);
    heldCharts.set(key, held);
    return held;
  }
  const chart = drawResponseChart(s, label);
  heldCharts.set(key, chart);
  if (heldCharts.size > MAX_HELD_CHARTS) heldCharts.delete(heldCharts.keys().next().value!);
  return chart;
}

function drawResponseChart(s: Series, label: ChartLabel): Html {
  const desc = chartDescription(s, label);
  const { W, H, PAD } = SIZES[label.size ?? 'large'];
  const name = `${label.title}: ${label.subject}`;
  const n = s.buckets.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, n);
  const sum = seriesSummary(s);
  // At least 10 ms, so the axis's labels stay whole milliseconds.
  const top = niceMax(Math.max(10, sum.maxP95 ?? 0));
  const x = (i: number) => PAD.left + step * (i + 0.5);
  const y = (v: number) => PAD.top + plotH - (Math.min(v, top) / top) * plotH;
  const grid = [0, 0.5, 1].map((f) => {
    const yy = PAD.top + plotH - f * plotH;
    return html`<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${yy.toFixed(1)}" y2="${yy.toFixed(1)}"/><text class="axis" x="${PAD.left - 6}" y="${(yy + 4).toFixed(1)}" text-anchor="end">${fmtMs(top * f)}</text>`;
  });
  // Bucket labels: about six along the axis, the newest last.
  const every = Math.max(1, Math.ceil(n / (label.size === 'small' ? 4 : 6)));
  const ticks = s.buckets
    .map((b, i) => ({ b, i }))
    .filter(({ i }) => (n - 1 - i) % every === 0)
    .map(({ b, i }) => html`<text class="axis" x="${x(i).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="${i === n - 1 ? 'end' : 'middle'}">${label.unit === 'hour' ? hh(b.startMs) : day(b.startMs)}</text>`);
  const before = s.buckets
    .map((b, i) => ({ b, i }))
    .filter(({ b }) => s.sinceMs !== null && b.startMs + s.bucketMs <= s.sinceMs);
  const shade =
    before.length > 0
      ? html`<rect class="nodata" x="${PAD.left}" y="${PAD.top}" width="${(step * before.length).toFixed(1)}" height="${plotH}"/><text class="axis" x="${(PAD.left + (step * before.length) / 2).toFixed(1)}" y="${PAD.top + 14}" text-anchor="middle">${before.length * step >= 60 ? 'no data' : ''}</text>`
      : '';
  const fails = s.buckets.map((b, i) =>
    b.failed > 0 ? html`<rect class="fail" x="${(x(i) - Math.max(1, step * 0.35)).toFixed(1)}" y="${H - PAD.bottom + 22}" width="${Math.max(2, step * 0.7).toFixed(1)}" height="6"><title>${label.unit === 'hour' ? hh(b.startMs) : day(b.startMs)}: ${b.failed} of ${b.runs} runs failed</title></rect>` : '',
  );
  const p50 = path(s.buckets.map((b, i) => (b.p50 === null ? null : [x(i), y(b.p50)])));
  const p95 = path(s.buckets.map((b, i) => (b.p95 === null ? null : [x(i), y(b.p95)])));
  // Dots make a lone bucket (a line of one point) visible.
  const dots = s.buckets.map((b, i) =>
    b.p95 === null || b.p50 === null
      ? ''
      : html`<circle class="p95" cx="${x(i).toFixed(1)}" cy="${y(b.p95).toFixed(1)}" r="2.5"/><circle class="p50" cx="${x(i).toFixed(1)}" cy="${y(b.p50).toFixed(1)}" r="2.5"/>`,
  );
  const empty = sum.runs === 0 ? html`<text class="axis" x="${PAD.left + plotW / 2}" y="${PAD.top + plotH / 2}" text-anchor="middle">No data</text>` : '';
  return html`<figure class="chart"><figcaption>${label.title}</figcaption>
<svg class="chart chart-${label.size ?? 'large'}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${name}. ${desc}" xmlns="http://www.w3.org/2000/svg"><title>${name}</title><desc>${desc}</desc>
${shade}${grid}${ticks}${fails}
<path class="p95" d="${p95}" fill="none" stroke-width="2" stroke-dasharray="6 4"/><path class="p50" d="${p50}" fill="none" stroke-width="2"/>${dots}${empty}
<g class="legend" aria-hidden="true"><line class="p50" x1="${PAD.left}" x2="${PAD.left + 20}" y1="${H - 8}" y2="${H - 8}" stroke-width="2"/><text class="axis" x="${PAD.left + 24}" y="${H - 4}">p50</text><line class="p95" x1="${PAD.left + 60}" x2="${PAD.left + 80}" y1="${H - 8}" y2="${H - 8}" stroke-width="2" stroke-dasharray="6 4"/><text class="axis" x="${PAD.left + 84}" y="${H - 4}">p95</text><rect class="fail" x="${PAD.left + 120}" y="${H - 11}" width="12" height="6"/><text class="axis" x="${PAD.left + 136}" y="${H - 4}">failed</text></g>
</svg></figure>`;
}

/** One day of an uptime bar: its state class and what it reads as. */
export interface BarDay {
  date: string;
  /** A state class (operational, minor, ..., no-data). */
  state: string;
  /** The day in words for its tooltip: "Operational", "No data", "99.3 % of runs passed". */
  text: string;
}

/**
 * The uptime bar of a status-page service: one bar per day (newest right); a day without data is
 * a short grey bar, every other day a full one coloured by its state. Each day has a <title>.
 */
export function uptimeBar(days: BarDay[], name: string, summary: string): Html {
  const n = Math.max(1, days.length);
  const gap = n > 60 ? 1 : 2;
  const w = (W - gap * (n - 1)) / n;
  const bars = days.map((d, i) => {
    const short = d.state === 'no-data';
    const hgt = short ? 10 : 32;
    return html`<rect class="day d-${d.state}" x="${(i * (w + gap)).toFixed(2)}" y="${34 - hgt}" width="${w.toFixed(2)}" height="${hgt}" rx="1"><title>${d.date}: ${d.text}</title></rect>`;
  });
  return html`<svg class="bar" viewBox="0 0 ${W} 34" preserveAspectRatio="none" role="img" aria-label="${name}: ${summary}" xmlns="http://www.w3.org/2000/svg"><title>${name}</title><desc>${summary}</desc>${bars}</svg>`;
}

/** Colours of a badge (a standalone image: no page stylesheet). White text on each meets 4.5:1. */
export const BADGE_COLORS = { label: '#334155', passing: '#15803d', degraded: '#a16207', failing: '#b91c1c', 'no-data': '#475569' } as const;
/** A badge's state. */
export type BadgeState = 'passing' | 'degraded' | 'failing' | 'no-data';

/** Width of a text at 11px Verdana, estimated per character class (no font metrics on the server). */
export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    if (/[il.,:;|!' ]/.test(ch)) w += 3.6;
    else if (/[mwMW%@]/.test(ch)) w += 10.5;
    else if (/[A-Z0-9]/.test(ch)) w += 7.6;
    else w += 6.6;
  }
  return Math.ceil(w);
}

/** A badge for a README: `label | message`, the message coloured by state. A standalone SVG document. */
export function badge(label: string, message: string, state: BadgeState): string {
  const l = label.length > 60 ? `${label.slice(0, 59)}…` : label;
  const lw = textWidth(l) + 12;
  const mw = textWidth(message) + 12;
  const total = lw + mw;
  return html`<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="20" viewBox="0 0 ${total} 20" role="img" aria-label="${l}: ${message}"><title>${l}: ${message}</title>
<rect width="${lw}" height="20" rx="3" fill="${BADGE_COLORS.label}"/><rect x="${lw}" width="${mw}" height="20" rx="3" fill="${BADGE_COLORS[state]}"/><rect x="${lw - 3}" width="6" height="20" fill="${BADGE_COLORS[state]}"/>
<g fill="#ffffff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11"><text x="${lw / 2}" y="14" text-anchor="middle">${l}</text><text x="${lw + mw / 2}" y="14" text-anchor="middle">${message}</text></g>
</svg>
`.value;
}

/** Buckets of a window aligned to UTC hours (24 of them, the current hour last). */
export function hourWindow(nowMs: number, hours = 24): { fromMs: number; toMs: number; bucketMs: number } {
  const fromMs = Math.floor(nowMs / HOUR) * HOUR - (hours - 1) * HOUR;
  return { fromMs, toMs: nowMs + 1, bucketMs: HOUR };
}

/** Buckets of a window aligned to UTC days (`days` of them, today last). */
export function dayWindow(nowMs: number, days = 30): { fromMs: number; toMs: number; bucketMs: number } {
  const D = 24 * HOUR;
  const fromMs = Math.floor(nowMs / D) * D - (days - 1) * D;
  return { fromMs, toMs: nowMs + 1, bucketMs: D };
}
