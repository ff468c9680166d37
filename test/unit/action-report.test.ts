import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capAnnotations, diagnosticAnnotations, planAnnotations } from '../../src/action/annotations.js';
import { repoPathOf } from '../../src/action/links.js';
import { appendSummary, SUMMARY_LIMIT } from '../../src/action/report.js';
import type { Diagnostic } from '../../src/config/types.js';
import type { Plan } from '../../src/plan/types.js';

describe('job summary', () => {
  // @actions/core's summary remembers the file of its first write: one file for all tests here.
  const dir = mkdtempSync(join(tmpdir(), 'mac-summary-'));
  const file = join(dir, 'summary.md');
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.GITHUB_STEP_SUMMARY;
    process.env.GITHUB_STEP_SUMMARY = file;
  });
  beforeEach(() => writeFileSync(file, ''));
  afterAll(() => {
    if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
    else process.env.GITHUB_STEP_SUMMARY = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes markdown as given when it fits', async () => {
    await appendSummary('### mac plan\n\nnothing to do\n');
    expect(readFileSync(file, 'utf8')).toBe('### mac plan\n\nnothing to do\n\n');
  });

  it('cuts at a line under the 1 MiB limit and says so', async () => {
    const line = `| \`~ update\` | TcpCheck/é-${'x'.repeat(80)} |\n`;
    await appendSummary(line.repeat(20_000));
    const text = readFileSync(file, 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(SUMMARY_LIMIT + 1);
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    expect(text).toContain('Cut here to stay under the 1 MiB job summary limit.');
    const beforeNote = text.slice(0, text.indexOf('\n\n> [!NOTE]'));
    expect(beforeNote.split('\n').every((l) => l === line.trimEnd())).toBe(true);
  });
});

describe('annotations', () => {
  const repoPath = repoPathOf('monitoring');

  it('puts validation errors at file:line:col from the repository root', () => {
    const d: Diagnostic = { severity: 'error', file: 'checks/db.yaml', line: 4, col: 39, path: 'request.port', message: 'must be at most 65535', hint: 'use a port number' };
    expect(diagnosticAnnotations([d, { ...d, severity: 'warning', path: '' }], repoPath)).toEqual([
      {
        level: 'error',
        message: 'request.port: must be at most 65535\nhint: use a port number',
        properties: { title: 'mac: invalid definition', file: 'monitoring/checks/db.yaml', startLine: 4, startColumn: 39 },
      },
      {
        level: 'warning',
        message: 'must be at most 65535\nhint: use a port number',
        properties: { title: 'mac: definition warning', file: 'monitoring/checks/db.yaml', startLine: 4, startColumn: 39 },
      },
    ]);
  });

  it('warns of each planned deletion, at its tombstone when it has one', () => {
    const plan: Plan = {
      version: 1,
      project: 'shop',
      createdAt: '',
      apiUrl: '',
      summary: { create: 0, update: 0, delete: 2, noop: 3 },
      warnings: ['TcpCheck "legacy" looks like db-primary; mac import adopts it'],
      changes: [
        { action: 'delete', kind: 'Snippet', id: 'old', file: 'snippets.yaml', line: 7, patch: [], dependsOn: [] },
        { action: 'delete', kind: 'TcpCheck', id: 'gone', name: 'Gone', patch: [], dependsOn: [] },
        { action: 'noop', kind: 'TcpCheck', id: 'kept', patch: [], dependsOn: [] },
      ],
    };
    expect(planAnnotations(plan, repoPath)).toEqual([
      { level: 'warning', message: 'Snippet/old will be deleted from the account', properties: { title: 'mac: planned deletion', file: 'monitoring/snippets.yaml', startLine: 7 } },
      { level: 'warning', message: 'TcpCheck/gone (Gone) will be deleted from the account', properties: { title: 'mac: planned deletion' } },
      { level: 'warning', message: plan.warnings[0], properties: { title: 'mac: plan warning' } },
    ]);
  });

  it('keeps at most 50 annotations per level', () => {
    const many = Array.from({ length: 70 }, (_, i) => ({ level: i % 2 ? ('error' as const) : ('warning' as const), message: `m${i}`, properties: {} }));
    const { kept, dropped } = capAnnotations(many);
    expect(kept.filter((a) => a.level === 'error')).toHaveLength(35);
    expect(kept).toHaveLength(70);
    const more = capAnnotations([...many, ...many]);
    expect(more.kept.filter((a) => a.level === 'error')).toHaveLength(50);
    expect(more.dropped).toBe(40);
    expect(dropped).toBe(0);
  });
});
