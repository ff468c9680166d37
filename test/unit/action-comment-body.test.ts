import { describe, expect, it } from 'vitest';
import { buildPlanBody, type BodyOptions } from '../../src/action/comment/body.js';
import { changedFields, diffLines } from '../../src/action/comment/diff.js';
import type { Plan, PlannedChange } from '../../src/plan/types.js';
import { expectInert } from '../helpers/markup.js';

const LIMIT = 60_000;

function opts(limit = LIMIT): BodyOptions {
  return {
    marker: '<!-- mac-plan:. -->',
    title: '### mac plan',
    limit,
    elsewhere: 'The full plan is in the job summary.',
    placeOf: (c) => (c.file ? `${c.file}:${c.line}` : undefined),
    linkOf: (c) => (c.file ? `https://github.com/acme/shop/blob/abc/${c.file}#L${c.line}` : undefined),
  };
}

function plan(changes: PlannedChange[], noop = 0): Plan {
  const count = (a: string) => changes.filter((c) => c.action === a).length;
  return {
    version: 1,
    project: 'shop',
    createdAt: '2026-01-01T00:00:00.000Z',
    apiUrl: 'http://127.0.0.1:4010',
    summary: { create: count('create'), update: count('update'), delete: count('delete'), noop },
    changes,
    warnings: [],
  };
}

const update = (i: number): PlannedChange => ({
  action: 'update',
  kind: 'TcpCheck',
  id: `check-${i}`,
  name: `Check number ${i}`,
  remoteId: 100 + i,
  file: `checks/c${i}.yaml`,
  line: 3,
  patch: [
    { op: 'replace', path: '/frequency', value: 5 },
    { op: 'add', path: '/tags/1', value: 'team-shop' },
    { op: 'replace', path: '/request/hostname', value: `db-${i}.internal.example.com` },
  ],
  dependsOn: [],
});
const create = (i: number): PlannedChange => ({
  action: 'create',
  kind: 'Snippet',
  id: `snip-${i}`,
  name: `snippet ${i}`,
  file: 'snippets.yaml',
  line: 1 + i * 4,
  patch: [
    { op: 'add', path: '/name', value: `snippet ${i}` },
    { op: 'add', path: '/script', value: 'const a = 1;\nconst b = "```";\n' },
  ],
  dependsOn: [],
});
const del = (i: number): PlannedChange => ({ action: 'delete', kind: 'TcpCheck', id: `gone-${i}`, name: `Gone ${i}`, remoteId: 9000 + i, patch: [], dependsOn: [] });

describe('plan comment body', () => {
  it('shows counts, then deletions, then one details block per change with its diff and a link', () => {
    const b = buildPlanBody(plan([update(1), create(2), del(3)], 40), opts());
    expect(b.level).toBe('full');
    const t = b.text;
    expect(t.startsWith('<!-- mac-plan:. -->\n\n### mac plan\n\n**Plan:** 1 to create, 1 to update, 1 to delete, 40 unchanged.')).toBe(true);
    expect(t.indexOf('**Deletes** (1)')).toBeLessThan(t.indexOf('<details>'));
    expect(t).toContain('- `TcpCheck/gone-3` `Gone 3`');
    expect(t.match(/<details>/g)).toHaveLength(3);
    expect(t).toContain('Defined at [`checks/c1.yaml:3`](https://github.com/acme/shop/blob/abc/checks/c1.yaml#L3)');
    expect(t).toContain('! frequency: ? -> 5');
    expect(t).toContain('+ tags[1]: "team-shop"'); // an unlabelled op (no set) reads by its path
    // A script holding ``` is fenced with a longer fence.
    expect(t).toContain('````diff\n+ name: "snippet 2"\n+ script: |\n+   const a = 1;\n+   const b = "```";\n````');
    expect(t).not.toContain('Cut to stay under');
  });

  it('lists the orphaned resources under their line, escaped, and never says the account matches', () => {
    const p: Plan = {
      ...plan([], 2),
      summary: { create: 0, update: 0, delete: 0, noop: 2, orphaned: 2 },
      orphaned: [
        { kind: 'TcpCheck', id: 'old-db', name: 'Old DB', remoteId: 'r-1' },
        { kind: 'TcpCheck', id: 'evil', name: '</details><!-- mac-plan:. -->', remoteId: 'r-2' },
      ],
    };
    const t = buildPlanBody(p, opts()).text;
    expect(t).toContain('**2 orphaned, not deleted: `mac plan --prune` deletes them**\n\n- `TcpCheck/old-db "Old DB" [r-1]`\n- ');
    expect(t).not.toContain('The account matches');
    expectInert(t, 1);
  });

  it('says there is nothing to do for an empty plan', () => {
    const b = buildPlanBody(plan([], 12), opts());
    expect(b.text).toContain('**No changes.** The account matches the definitions (12 unchanged).');
    expect(b.text).not.toContain('<details>');
  });

  it('falls back to changed fields only when the diffs do not fit, and says so', () => {
    const changes = Array.from({ length: 150 }, (_, i) => update(i));
    const full = buildPlanBody(plan(changes), opts(10_000_000));
    expect(full.level).toBe('full');
    const b = buildPlanBody(plan(changes), opts(full.text.length - 1000));
    expect(b.level).toBe('fields');
    expect(b.text).toContain('| `~ update` | `TcpCheck/check-7` · `Check number 7` | [`checks/c7.yaml:3`](https://github.com/acme/shop/blob/abc/checks/c7.yaml#L3) | `frequency, tags[1], request.hostname` |');
    expect(b.text).toContain('the diffs were left out (changed fields are listed instead). The full plan is in the job summary.');
    expect(b.text).not.toContain('<details>');
  });

  it('keeps a 3,000-change plan under 60,000 characters and says what was cut', () => {
    const changes = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? del(i) : i % 3 === 1 ? create(i) : update(i)));
    const b = buildPlanBody(plan(changes, 5), opts());
    expect(b.text.length).toBeLessThan(LIMIT);
    expect(Buffer.byteLength(b.text)).toBeLessThanOrEqual(LIMIT);
    expect(b.level).toBe('table');
    expect(b.omitted).toBeGreaterThan(0);
    expect(b.omittedDeletions).toBeGreaterThan(0);
    expect(b.text).toContain('**Plan:** 1000 to create, 1000 to update, 1000 to delete, 5 unchanged.');
    expect(b.text).toContain(`_…and ${b.omitted} more changes not listed._`);
    expect(b.text).toContain(`- _…and ${b.omittedDeletions} more deletions._`);
    expect(b.text).toContain(
      `Cut to stay under 60 kB: the diffs and changed fields were left out; ${b.omitted} of 3000 changes are not listed; ${b.omittedDeletions} deletions are not listed. The full plan is in the job summary.`,
    );
    // The table is cut at a row boundary.
    const rows = b.text.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.length).toBe(3000 - b.omitted);
    expect(rows.every((r) => r.endsWith('|'))).toBe(true);
  });

  it('with changed-since, lists the pull request\'s files first and the rest under "Also differs", at every level', () => {
    const changes = Array.from({ length: 3000 }, (_, i) => ({ ...update(i), inChangedFiles: i % 2 === 0 ? true : undefined }));
    const p = { ...plan(changes), changedSince: { ref: 'a'.repeat(40), files: ['checks/c0.yaml'] } };
    const pr = { ...opts(), sinceIsPullRequestBase: true };
    const small = buildPlanBody({ ...p, changes: changes.slice(0, 4) }, pr).text;
    expect(small).toContain("The plan covers the whole project, as a merge applies it: 2 changes are defined in this pull request's 1 changed file (listed first), **2 more differ in the account outside them**.");
    const first = small.indexOf("#### In this pull request's files (2)");
    const also = small.indexOf("#### Also differs in the account (not in this PR's files) (2)");
    expect(first).toBeGreaterThan(0);
    expect(also).toBeGreaterThan(small.indexOf('<code>TcpCheck/check-2</code>'));
    expect(small.indexOf('<code>TcpCheck/check-1</code>')).toBeGreaterThan(also);
    const cli = buildPlanBody({ ...p, changes: changes.slice(0, 2) }, opts()).text;
    expect(cli).toContain('#### Also differs in the account (not in the files changed since `aaaaaaa`) (1)');
    // The table level: both sections' tables, rows cut in order, the count of rows left out exact.
    const table = buildPlanBody(p, pr);
    expect(table.level).toBe('table');
    const rows = table.text.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.length).toBe(3000 - table.omitted);
    expect(table.text).toContain("#### In this pull request's files (1500)");
    expect(table.text).toContain(`_…and ${table.omitted} more changes not listed._`);
  });

  it('a narrowed plan says so first, with what it left out', () => {
    const p = { ...plan([update(1)]), changedSince: { ref: 'main', files: ['checks/c1.yaml'], only: true, leftOut: 3 } };
    const t = buildPlanBody(p, opts()).text;
    expect(t.startsWith('<!-- mac-plan:. -->\n\n**Plan narrowed to files changed since `main`: 3 other changes left out.**\n\n### mac plan')).toBe(true);
    expect(t).not.toContain('Also differs');
  });

  it('escapes names that would break the markup', () => {
    const c = { ...update(1), name: 'a <b> | c' };
    const full = buildPlanBody(plan([c]), opts()).text;
    expect(full).toContain('<summary><code>~ update</code> <code>TcpCheck/check-1</code> · <code>a &lt;b&gt; | c</code></summary>');
    const fields = buildPlanBody(plan([c, ...Array.from({ length: 200 }, (_, i) => update(i + 2))]), opts(30_000)).text;
    expect(fields).toContain('| `~ update` | `TcpCheck/check-1` · `a <b> \\| c` |');
  });

  it('never lets a hostile name, id, value, note or file path add markup (details, marker, image, link, mention, table, fence)', () => {
    const evil = '</details><!-- mac-plan:. -->![x](http://evil) @octocat\n\n| a | b |\n```';
    const c: PlannedChange = {
      ...update(1),
      id: `id-${evil}`,
      name: evil,
      file: `checks/${evil}.yaml`,
      notes: [`note ${evil}`],
      patch: [{ op: 'replace', path: '/name', value: evil, oldValue: 'x' }],
    };
    const d: PlannedChange = { ...del(2), name: evil };
    const hostile = { ...plan([c, d]), warnings: [`warning ${evil}`] };
    for (const limit of [LIMIT, 2_500, 1_500]) {
      const b = buildPlanBody(hostile, { ...opts(limit), linkOf: (x) => (x.file ? `https://github.com/acme/shop/blob/abc/${encodeURIComponent(x.file)}` : undefined) });
      expectInert(b.text, 1);
    }
  });
});

describe('diff of one change', () => {
  it('lists changed fields by patch order and creates by their fields', () => {
    expect(changedFields(update(1))).toEqual(['frequency', 'tags[1]', 'request.hostname']);
    expect(changedFields(create(1))).toEqual(['name', 'script']);
    expect(changedFields(del(1))).toEqual([]);
  });

  it('renders removes, escaped pointers, references and deletions', () => {
    const patch: PlannedChange['patch'] = [
      { op: 'remove', path: '/headers/x~1y' },
      { op: 'add', path: '/setupSnippetId', value: { $ref: 'Snippet/auth' } },
    ];
    expect(diffLines({ ...update(1), patch })).toEqual(['- headers.x/y', '+ setupSnippetId: (known after apply: Snippet/auth)']);
    expect(diffLines(del(4))).toEqual(['- TcpCheck/gone-4 (remote id 9004)']);
  });

  it('shows the live value of a replace or remove when the plan recorded it', () => {
    const patch = [
      { op: 'replace', path: '/frequency', value: 5, oldValue: 10 },
      { op: 'remove', path: '/tags/0', oldValue: 'old' },
    ] as PlannedChange['patch'];
    expect(diffLines({ ...update(1), patch })).toEqual(['! frequency: 10 -> 5', '- tags[0]: "old"']);
  });

  it('shows set members by value and subscriptions by logical id, as text and markdown do, never by index or raw id', () => {
    const patch = [
      { op: 'add', path: '/tags/2', value: 'team-platform', label: 'team-platform' },
      { op: 'remove', path: '/tags/0', oldValue: 'tier-2', label: 'tier-2' },
      { op: 'add', path: '/alertChannelSubscriptions/1', value: { alertChannelId: 7123, activated: true }, label: 'oncall-email' },
    ] as PlannedChange['patch'];
    const u = { ...update(1), patch };
    expect(diffLines(u)).toEqual(['+ tags: "team-platform"', '- tags: "tier-2"', '+ alertChannels: oncall-email']);
    expect(changedFields(u)).toEqual(['tags', 'alertChannels']);
  });

  it('shows a create\'s subscriptions by logical id and counts the server defaults it never wrote', () => {
    const c: PlannedChange = {
      action: 'create',
      kind: 'TcpCheck',
      id: 'home',
      name: 'Home',
      patch: [
        { op: 'add', path: '/name', value: 'Home' },
        { op: 'add', path: '/degradedResponseTime', value: 10000 },
        { op: 'add', path: '/request', value: { url: 'https://x.example', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', regex: '' }] } },
        { op: 'add', path: '/alertChannelSubscriptions', value: [{ alertChannelId: 7123, activated: true }, { alertChannelId: 7124, activated: false }] },
      ],
      defaulted: ['/degradedResponseTime', '/request/assertions/0/regex'],
      labels: { '/alertChannelSubscriptions/0': 'oncall-email', '/alertChannelSubscriptions/1': 'ops-slack' },
      dependsOn: [],
    };
    const lines = diffLines(c);
    expect(lines).toEqual([
      '+ name: "Home"',
      '+ request: {url: "https://x.example", assertions: [{source: "STATUS_CODE", comparison: "EQUALS", target: "200"}]}',
      '+ alertChannels: oncall-email',
      '+ alertChannels: ops-slack (not activated)',
      '+ 2 defaults',
    ]);
    expect(lines.join('\n')).not.toMatch(/7123|regex|degradedResponseTime/);
    expect(changedFields(c)).toEqual(['name', 'request', 'alertChannels']);
    // The same lines in the comment, escaped as ever.
    const b = buildPlanBody(plan([c]), opts());
    expect(b.text).toContain('+ alertChannels: oncall-email');
    expect(b.text).toContain('+ 2 defaults');
    expect(b.text).not.toContain('7123');
  });

  it('shows a changed script line by line', () => {
    const patch = [{ op: 'replace', path: '/script', value: 'a();\nb();\n', oldValue: 'a();\n' }] as PlannedChange['patch'];
    expect(diffLines({ ...update(1), patch })).toEqual(['- script: |', '-   a();', '+ script: |', '+   a();', '+   b();']);
  });
});
