import type { Colors } from 'picocolors/types.js';
import type { TestReport, TestStatus } from './suite.js';

/** Renders a test report as a table, failed assertions, and a summary line. */
export function renderTestText(report: TestReport, c: Colors): string {
  if (report.checks.length === 0) return 'No checks to test.';
  const paint: Record<TestStatus, (s: string) => string> = { pass: c.green, fail: c.red, degraded: c.yellow, skipped: c.dim };
  const rows = report.checks.map((e) => [
    `${e.kind}/${e.id}`,
    e.checkType,
    e.status,
    e.responseTime === null ? '-' : `${e.responseTime} ms`,
    e.status === 'degraded' ? 'slower than degradedResponseTime' : (e.message ?? '').replace(/\s+/g, ' '),
  ]);
  const header = ['CHECK', 'TYPE', 'RESULT', 'TIME', 'DETAILS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[], status?: TestStatus) =>
    cells
      .map((cell, i) => {
        const padded = i === cells.length - 1 ? cell : cell.padEnd(widths[i]);
        return i === 2 && status ? paint[status](padded) : padded;
      })
      .join('  ')
      .trimEnd();
  const out = [c.bold(line(header)), ...rows.map((r, i) => line(r, report.checks[i].status))];
  const withAssertions = report.checks.filter((e) => e.failedAssertions.length > 0);
  if (withAssertions.length > 0) {
    out.push('', 'Failed assertions:');
    for (const e of withAssertions) {
      out.push(`  ${e.kind}/${e.id} (${e.file}:${e.line})`);
      for (const a of e.failedAssertions) out.push(`    ${a}`);
    }
  }
  const s = report.summary;
  out.push('', `${s.pass} passed, ${s.fail} failed, ${s.degraded} degraded, ${s.skipped} skipped`);
  return out.join('\n');
}

/** Renders a test report as one JSON document. */
export function renderTestJson(report: TestReport): string {
  return JSON.stringify(report, null, 2);
}
