import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/apply/result.js';
import { renderResult } from '../../../src/render/result-index.js';

const result: ApplyResult = {
  project: 'shop',
  apiUrl: 'http://127.0.0.1:4010',
  outcomes: [
    { key: 'Snippet/auth', action: 'create', kind: 'Snippet', id: 'auth', status: 'applied', remoteId: 4 },
    { key: 'DnsCheck/dns', action: 'create', kind: 'DnsCheck', id: 'dns', status: 'skipped', skippedBecause: ['Snippet/setup'] },
    {
      key: 'Snippet/setup',
      action: 'update',
      kind: 'Snippet',
      id: 'setup',
      status: 'failed',
      remoteId: 2,
      error: '400 Bad Request: "script" is required | empty',
      hint: 'set script',
    },
    {
      key: 'TcpCheck/db',
      action: 'create',
      kind: 'TcpCheck',
      id: 'db',
      status: 'applied',
      remoteId: 'c0ffee',
      notes: ['created once: the lost response was reconciled with the live object'],
    },
  ],
  summary: { applied: 2, failed: 1, skipped: 1, unchanged: 7 },
  convergence: { checked: 2, issues: [{ kind: 'TcpCheck', id: 'db', field: '/request/ipFamily', message: 'live "IPv4", defined absent' }] },
  durationMs: 1234,
  requests: 9,
};

describe('apply result renderers', () => {
  it('renders text with failures first and the convergence issues', () => {
    expect(renderResult(result, 'text')).toMatchInlineSnapshot(`
      "Apply: applied 2, failed 1, skipped 1, unchanged 7 (1.2 s, 9 requests)

        failed   update  Snippet/setup  400 Bad Request: "script" is required | empty
                                        hint: set script
        skipped  create  DnsCheck/dns   needs Snippet/setup, which did not apply
        applied  create  Snippet/auth   id 4
        applied  create  TcpCheck/db    id c0ffee; created once: the lost response was reconciled with the live object

      Convergence: 1 difference left after apply (a normalization bug in mac; please report it)
        TcpCheck/db  /request/ipFamily  live "IPv4", defined absent"
    `);
  });

  it('renders markdown with escaped cells', () => {
    expect(renderResult(result, 'markdown')).toMatchInlineSnapshot(`
      "### mac apply: applied 2, failed 1, skipped 1, unchanged 7

      | | status | action | resource | detail |
      |---|---|---|---|---|
      | ❌ | failed | update | \`Snippet/setup\` | 400 Bad Request: "script" is required \\| empty (hint: set script) |
      | ⏭️ | skipped | create | \`DnsCheck/dns\` | needs Snippet/setup, which did not apply |
      | ✅ | applied | create | \`Snippet/auth\` | id 4 |
      | ✅ | applied | create | \`TcpCheck/db\` | id c0ffee; created once: the lost response was reconciled with the live object |

      **Convergence: 1 difference left after apply** (a normalization bug in mac).

      | resource | field | difference |
      |---|---|---|
      | \`TcpCheck/db\` | \`/request/ipFamily\` | live "IPv4", defined absent |"
    `);
  });

  it('renders one JSON document that round-trips', () => {
    expect(JSON.parse(renderResult(result, 'json'))).toEqual(result);
  });

  it('says when the account converged', () => {
    const clean = { ...result, outcomes: [], summary: { applied: 0, failed: 0, skipped: 0, unchanged: 3 }, convergence: { checked: 1, issues: [] } };
    expect(renderResult(clean, 'text')).toContain('Convergence: 1 object re-read, no difference left');
  });
});
