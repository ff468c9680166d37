import type { ApplyResult } from '../apply/result.js';
import { outcomeDetail, outcomesInReadingOrder, resultHeadline } from './result-text.js';

const ICON = { applied: '✅', failed: '❌', skipped: '⏭️' } as const;

/** Escapes text for a markdown table cell. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** Renders an apply result as GitHub-flavoured markdown (job summaries, PR comments). */
export function renderResultMarkdown(result: ApplyResult): string {
  const lines: string[] = [`### mac apply: ${resultHeadline(result)}`, ''];
  const rows = outcomesInReadingOrder(result.outcomes);
  if (rows.length > 0) {
    lines.push('| | status | action | resource | detail |', '|---|---|---|---|---|');
    for (const o of rows) {
      const detail = o.hint ? `${outcomeDetail(o)} (hint: ${o.hint})` : outcomeDetail(o);
      lines.push(`| ${ICON[o.status]} | ${o.status} | ${o.action} | \`${o.key}\` | ${cell(detail)} |`);
    }
    lines.push('');
  }
  if (result.convergence) {
    const { checked, issues } = result.convergence;
    if (issues.length === 0) {
      lines.push(`Convergence: ${checked} object${checked === 1 ? '' : 's'} re-read, no difference left.`);
    } else {
      lines.push(`**Convergence: ${issues.length} difference${issues.length === 1 ? '' : 's'} left after apply** (a normalization bug in mac).`, '');
      lines.push('| resource | field | difference |', '|---|---|---|');
      for (const i of issues) lines.push(`| \`${i.kind}/${i.id}\` | \`${i.field || '/'}\` | ${cell(i.message)} |`);
    }
  }
  if (result.recordError) lines.push('', `**Ownership record:** ${cell(result.recordError)}`);
  return lines.join('\n').trimEnd();
}
