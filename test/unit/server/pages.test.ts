import { describe, expect, it } from 'vitest';
import { PERCENTILE_RELATIVE_ERROR } from '../../../src/server/store/rollup.js';
import { esc, html, safeUrl, styleText } from '../../../src/server/pages/html.js';
import { dashboardData, selectChecks } from '../../../src/server/pages/dashboard.js';
import { Store, type AccountView } from '../../../src/server/store/store.js';
import { RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { runReads } from '../../../src/server/rundata/figures.js';
import { contrast, DEFAULT_DARK, DEFAULT_LIGHT, STATE_COLORS, themeCss } from '../../../src/server/pages/theme.js';
import { incidentFacts, serviceDays } from '../../../src/server/pages/status.js';
import { csp, layout, styleHash } from '../../../src/server/pages/layout.js';
import { createHash } from 'node:crypto';

describe('page markup', () => {
  it('escapes every interpolated value, keeps built markup, drops null and false', () => {
    const name = '<script>alert("x")</script> & \'q\'';
    const out = html`<p title="${name}">${name}${null}${false}${html`<b>${'<i>'}</b>`}${['<a>', html`<br>`]}</p>`.value;
    expect(out).toBe(`<p title="${esc(name)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;<b>&lt;i&gt;</b>&lt;a&gt;<br></p>`);
    expect(out).not.toContain('<script>');
  });

  it('keeps customCSS inside its <style>: no "<" survives, so no </style> or <!--', () => {
    const css = 'body{color:red}</style><script>alert(1)</script><!-- </STYLE >';
    const out = styleText(css);
    expect(out).not.toContain('<');
    expect(out).toContain('body{color:red}\\3c /style>');
  });

  it('links and images only to http(s) URLs or paths', () => {
    expect(safeUrl('https://example.com/logo.png')).toBe('https://example.com/logo.png');
    expect(safeUrl('/x')).toBe('/x');
    for (const bad of ['javascript:alert(1)', ' JAVASCRIPT:alert(1)', 'data:text/html,x', '//evil.example', '', null, 3]) expect(safeUrl(bad)).toBeNull();
  });

  it('the CSP allows scripts only from the service itself and styles only by their hashes', () => {
    const policy = csp([styleHash('a{}')]);
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain(`style-src 'sha256-${createHash('sha256').update('a{}').digest('base64')}';`);
    expect(policy).toContain("default-src 'none'");
    // A fragment (no <style>): no style at all.
    expect(csp([])).toContain("style-src 'none'");
  });

  it('allows each <style> of a page by the hash of the text a browser reads, and nothing else', () => {
    const page = layout({ title: 't', themeCss: ':root{--bg:#fff}', customCss: 'h1{color:red}\r\nh2{color:blue}\r</style>\u0000', header: html``, main: html`<p>x</p>` });
    const texts = [...page.html.matchAll(/<style(?: id="custom-css")?>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    expect(texts).toHaveLength(2);
    // As the HTML parser hands them to the CSP check: CR LF and CR as LF, NUL as U+FFFD, no '<'.
    expect(texts[1]).toBe('h1{color:red}\nh2{color:blue}\n\\3c /style>\uFFFD');
    expect(page.styles).toEqual(texts.map((t) => `'sha256-${createHash('sha256').update(t, 'utf8').digest('base64')}'`));
    expect(page.html).not.toContain('nonce');
  });
});

describe('dashboard tag selection', () => {
  const checks = [
    { id: '1', name: 'c-api', tags: ['api', 'prod'] },
    { id: '2', name: 'b-web', tags: ['web', 'prod'] },
    { id: '3', name: 'a-db', tags: ['db'] },
    { id: '4', name: 'd-none' },
  ];
  const names = (xs: Array<{ name: string }>) => xs.map((c) => c.name);
  it('takes every check (by name) when the dashboard has no tags', () => {
    expect(names(selectChecks(checks, [], false))).toEqual(['a-db', 'b-web', 'c-api', 'd-none']);
    expect(names(selectChecks(checks, undefined, true))).toEqual(['a-db', 'b-web', 'c-api', 'd-none']);
  });
  it('OR: any tag; AND (useTagsAndOperator): all tags', () => {
    expect(names(selectChecks(checks, ['api', 'db'], false))).toEqual(['a-db', 'c-api']);
    expect(names(selectChecks(checks, ['api', 'db'], true))).toEqual([]);
    expect(names(selectChecks(checks, ['prod', 'api'], true))).toEqual(['c-api']);
    expect(names(selectChecks(checks, ['prod'], true))).toEqual(['b-web', 'c-api']);
  });
});

describe('default themes meet WCAG 2.1 AA contrast', () => {
  for (const [name, t, states] of [
    ['light', DEFAULT_LIGHT, STATE_COLORS.light],
    ['dark', DEFAULT_DARK, STATE_COLORS.dark],
  ] as const) {
    it(`${name}: text 4.5:1 on its backgrounds, state colours 3:1 on the card`, () => {
      for (const bg of [t.bodyBackgroundColor, t.cardBackgroundColor]) {
        for (const fg of [t.bodyFontColor, t.bodyFontColorMuted, t.titleFontColor, t.linkFontColor]) expect(contrast(fg, bg), `${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
      }
      expect(contrast(t.headerFontColor, t.headerBackgroundColor)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(t.navigationFontColor, t.headerBackgroundColor)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(t.primaryButtonFontColor, t.primaryButtonBackgroundColor)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(t.borderColor, t.cardBackgroundColor)).toBeGreaterThanOrEqual(2);
      for (const c of Object.values(states)) {
        expect(contrast(c, t.cardBackgroundColor), `${c} on ${t.cardBackgroundColor}`).toBeGreaterThanOrEqual(3);
      }
    });
  }
  it('AUTO follows prefers-color-scheme; LIGHT and DARK pick one', () => {
    expect(themeCss(null, 'AUTO')).toContain('@media (prefers-color-scheme: dark)');
    expect(themeCss(null, 'LIGHT')).not.toContain('prefers-color-scheme');
    expect(themeCss(null, 'DARK')).toContain(`--bg:${DEFAULT_DARK.bodyBackgroundColor}`);
    expect(themeCss({ light: { ...DEFAULT_LIGHT, bodyBackgroundColor: 'red;}x{' }, dark: DEFAULT_DARK }, 'LIGHT')).not.toContain('red;');
  });
});

describe('service history from incidents', () => {
  const DAY = 86_400_000;
  const now = Date.parse('2026-03-10T12:00:00Z');
  const update = (status: string, at: number) => ({ id: `u${at}`, description: 'd', status, publicIncidentUpdateDate: new Date(at).toISOString(), notifySubscribers: false, created_at: new Date(at).toISOString(), updated_at: null });
  const incident = (severity: string, updates: ReturnType<typeof update>[]) => ({
    id: `i-${severity}`, name: 'n', severity, services: [{ id: 's1' }], incidentUpdates: updates, created_at: updates[0].created_at, updated_at: null,
  });

  it('an incident is open until its newest update is RESOLVED; updates newest first', () => {
    const open = incidentFacts(incident('MAJOR', [update('INVESTIGATING', now - DAY), update('MONITORING', now - 1000)]));
    expect(open.open).toBe(true);
    expect(open.updatesNewestFirst.map((u) => u.status)).toEqual(['MONITORING', 'INVESTIGATING']);
    const done = incidentFacts(incident('MAJOR', [update('INVESTIGATING', now - DAY), update('RESOLVED', now - 1000)]));
    expect([done.open, done.endMs]).toEqual([false, now - 1000]);
  });

  it('90 UTC days, each the worst severity of the incidents open that day', () => {
    const facts = [
      incidentFacts(incident('MINOR', [update('INVESTIGATING', now - 5 * DAY), update('RESOLVED', now - 4 * DAY)])),
      incidentFacts(incident('CRITICAL', [update('INVESTIGATING', now - 4 * DAY - 3600_000), update('RESOLVED', now - 4 * DAY)])),
      incidentFacts(incident('MEDIUM', [update('INVESTIGATING', now - 3600_000)])),
    ];
    const days = serviceDays('s1', facts, now);
    expect(days).toHaveLength(90);
    expect(days[89]).toEqual({ date: '2026-03-10', state: 'degraded' });
    expect(days[84].state).toBe('minor');
    expect(days[85].state).toBe('major-outage');
    expect(days[86].state).toBe('operational');
    expect(serviceDays('other', facts, now).every((d) => d.state === 'operational')).toBe(true);
  });
});

describe('dashboard data from results', () => {
  const HOUR = 3_600_000;
  const now = Date.parse('2026-03-10T12:00:00Z');
  const result = (checkId: string, hoursAgo: number, over: Record<string, unknown> = {}) => ({
    id: `${checkId}-${hoursAgo}`, checkId, resultType: 'FINAL', hasFailures: false, hasErrors: false, isDegraded: false,
    startedAt: new Date(now - hoursAgo * HOUR).toISOString(), runLocation: 'local', responseTime: 10 * (hoursAgo + 1), attempts: 1, ...over,
  });
  // The checks from a view; the results from a store in memory, reduced as on a database.
  const view = (colls: Record<string, Array<Record<string, unknown>>>): AccountView => ({
    account: 'a',
    get: (kind, id) => (colls[kind] ?? []).find((r) => r.id === id) as any,
    list: (kind) => (colls[kind] ?? []) as any,
  });
  const runsOf = (results: Array<Record<string, unknown>>) => {
    const store = Store.memory(RUN_INDEX);
    const tx = store.begin('a');
    for (const r of results) tx.put('checkResults', r.id as string, r);
    tx.commit();
    return runReads(store, 'a');
  };
  const src = view({
    checks: [
      { id: 'c1', name: 'one', checkType: 'TCP', tags: ['x'] },
      { id: 'c2', name: 'two', checkType: 'DNS', tags: ['x'] },
      { id: 'c3', name: 'three', checkType: 'TCP', tags: ['y'] },
    ],
  });
  const runs = runsOf([
    result('c1', 30, { hasFailures: true }), // outside 24 h: not in availability
    result('c1', 3),
    result('c1', 2, { hasErrors: true }),
    result('c1', 1),
    result('c1', 0, { isDegraded: true }),
    result('c1', 0.5, { resultType: 'ATTEMPT', hasFailures: true }), // attempts never count
    result('c2', 1, { hasFailures: true }),
    result('c3', 1),
  ]);

  it('state from the newest FINAL result, availability over 24 h (degraded is up), percentiles of the day', async () => {
    const data = await dashboardData(src, runs, { dashboardId: 'd', customUrl: 'd', customDomain: null, tags: ['x'] }, now);
    expect(data.checks.map((c) => [c.name, c.state, c.availability24h])).toEqual([
      ['one', 'degraded', 75],
      ['two', 'failing', 0],
    ]);
    expect(data.checks[0]).toMatchObject({ tags: ['x'], lastRun: { location: 'local', responseTime: 10 } });
    // Percentiles from the histogram of response times: within 2.5 % of the exact nearest rank (40 here).
    for (const p of [data.checks[0].p95, data.checks[0].p99]) expect(Math.abs((p as number) - 40)).toBeLessThanOrEqual(40 * PERCENTILE_RELATIVE_ERROR);
    expect(data.checks[0]).not.toHaveProperty('runHref');
    expect(data).not.toHaveProperty('incidents');
  });

  it('leaves out what the dashboard hides; no data without results', async () => {
    const data = await dashboardData(view({ checks: [{ id: 'c9', name: 'new' }] }), runsOf([]), {
      dashboardId: 'd', customUrl: 'd', customDomain: null, showP95: false, showP99: false, hideTags: true, showCheckRunLinks: true, enableIncidents: true,
    }, now);
    expect(data.checks[0]).toEqual({ id: 'c9', name: 'new', checkType: null, state: 'no-data', stateLabel: 'No data', availability24h: null, lastRun: null, runHref: null });
    expect(data.incidents).toEqual([]);
  });
});
