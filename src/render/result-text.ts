import type { ApplyResult, ChangeOutcome, ChangeStatus } from '../apply/result.js';

/** Colour helpers a renderer may use; identity functions when colour is off. */
export interface ResultColors {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const plain: ResultColors = { red: (s) => s, green: (s) => s, yellow: (s) => s, dim: (s) => s, bold: (s) => s };

/** Failures first: they are what a reader needs to act on. */
const STATUS_ORDER: Record<ChangeStatus, number> = { failed: 0, skipped: 1, applied: 2 };

/** Outcomes in reading order: failed, then skipped, then applied; plan order within each. */
export function outcomesInReadingOrder(outcomes: readonly ChangeOutcome[]): ChangeOutcome[] {
  return outcomes
    .map((o, i) => ({ o, i }))
    .sort((a, b) => STATUS_ORDER[a.o.status] - STATUS_ORDER[b.o.status] || a.i - b.i)
    .map(({ o }) => o);
}

/** The one-line detail of an outcome: the error, what blocked it, or the id it now has. */
export function outcomeDetail(o: ChangeOutcome): string {
  if (o.status === 'failed') return o.error ?? 'failed';
  if (o.status === 'skipped') return o.skipReason ?? `needs ${(o.skippedBecause ?? []).join(', ')}, which did not apply`;
  const parts = o.remoteId !== undefined ? [`id ${o.remoteId}`] : [];
  return [...parts, ...(o.notes ?? [])].join('; ');
}

/** The headline counts of a run, e.g. "applied 3, failed 1, skipped 2, unchanged 40". */
export function resultHeadline(result: ApplyResult): string {
  const s = result.summary;
  return `applied ${s.applied}, failed ${s.failed}, skipped ${s.skipped}, unchanged ${s.unchanged}`;
}

/** Renders an apply result for a terminal: a table of changes, then the convergence check. */
export function renderResultText(result: ApplyResult, colors: ResultColors = plain): string {
  const c = colors;
  const lines: string[] = [];
  const seconds = (result.durationMs / 1000).toFixed(1);
  lines.push(`${c.bold('Apply:')} ${resultHeadline(result)} ${c.dim(`(${seconds} s, ${result.requests} requests)`)}`);
  const rows = outcomesInReadingOrder(result.outcomes);
  if (rows.length > 0) {
    const paint = { applied: c.green, failed: c.red, skipped: c.yellow } as const;
    const keyWidth = Math.max(...rows.map((o) => o.key.length));
    lines.push('');
    for (const o of rows) {
      const status = paint[o.status](o.status.padEnd(7));
      lines.push(`  ${status}  ${o.action.padEnd(6)}  ${o.key.padEnd(keyWidth)}  ${outcomeDetail(o)}`.trimEnd());
      if (o.hint) lines.push(`  ${' '.repeat(7 + 2 + 6 + 2 + keyWidth)}  ${c.dim(`hint: ${o.hint}`)}`);
    }
  }
  if (result.convergence) {
    const { checked, issues } = result.convergence;
    lines.push('');
    if (issues.length === 0) {
      lines.push(`${c.bold('Convergence:')} ${checked} object${checked === 1 ? '' : 's'} re-read, no difference left`);
    } else {
      lines.push(
        `${c.bold('Convergence:')} ${c.red(`${issues.length} difference${issues.length === 1 ? '' : 's'} left after apply`)} (a normalization bug in mac; please report it)`,
      );
      for (const i of issues) lines.push(`  ${i.kind}/${i.id}  ${i.field || '(whole object)'}  ${i.message}`);
    }
  }
  if (result.recordError) lines.push('', `${c.bold('Ownership record:')} ${c.red(result.recordError)}`);
  return lines.join('\n');
}
