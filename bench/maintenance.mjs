// Cost of the maintenance-window checks, in process (built modules): what the alerter adds to a
// check's state change (activeWindow over the account's windows, at most 1000) and what a status
// page adds (current and upcoming windows). Windows in UTC and in named zones (Intl offsets).
// `node bench/maintenance.mjs` after `npm run build`.
import { activeWindow, currentWindows, upcomingWindows } from '../dist/server/runs/maintenance.js';

const NOW = Date.parse('2030-06-15T12:00:00Z');
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney'];
const UNITS = ['DAY', 'WEEK', 'MONTH'];

function windows(n, zoned) {
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `w${i}`,
    tags: [`team-${i % 50}`, 'prod'],
    startsAt: new Date(Date.parse('2030-01-01T00:00:00Z') + i * 3_600_000).toISOString(),
    endsAt: new Date(Date.parse('2030-01-01T00:30:00Z') + i * 3_600_000).toISOString(),
    repeatInterval: i % 4 === 0 ? null : 1 + (i % 3),
    repeatUnit: UNITS[i % 3],
    repeatEndsAt: null,
    timezone: zoned ? ZONES[i % ZONES.length] : null,
    silenceAlertsTags: [],
    silenceAllAlerts: false,
  }));
}

/** CPU microseconds per call (user + system: on a shared machine wall time counts other processes' turns). */
function time(fn, n) {
  for (let i = 0; i < n; i++) fn(i);
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / n;
}

const rows = [];
for (const zoned of [false, true]) {
  for (const n of [10, 1000]) {
    const ws = windows(n, zoned);
    rows.push({
      windows: n,
      zones: zoned ? 'named' : 'UTC',
      // Tags every window covers (worst case: each one's schedule is evaluated) and none covers.
      alertCoveredUs: +time((i) => activeWindow(ws, ['nothing', 'prod'], NOW + i * 1000), 200).toFixed(1),
      alertUncoveredUs: +time((i) => activeWindow(ws, ['nothing'], NOW + i * 1000), 200).toFixed(1),
      pageUs: +time((i) => {
        currentWindows(ws, NOW + i * 1000);
        upcomingWindows(ws, NOW + i * 1000, 7 * 86_400_000, 5);
      }, 50).toFixed(1),
    });
  }
}
console.table(rows);
