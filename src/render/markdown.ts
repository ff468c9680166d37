import type { Plan, PlannedChange } from '../plan/types.js';
import { defaultsLine, describeOp, location, orphanLabel, orphanLine, shownOps, summaryLine, visibleChanges } from './values.js';

/** The plan for a pull-request comment: a summary table, then one `<details>` block per changed resource. */
export function renderMarkdown(plan: Plan): string {
  const out: string[] = [];
  const changes = visibleChanges(plan);
  out.push(`### mac plan: \`${plan.project}\``);
  out.push('');
  out.push(`**${summaryLine(plan)}** ${plan.summary.noop} unchanged.`);
  const orphans = orphanLine(plan);
  if (plan.changedSince) {
    out.push('');
    out.push(`Only resources defined in the ${plan.changedSince.files.length} file(s) changed since \`${plan.changedSince.ref}\` were planned.`);
  }
  if (changes.length > 0) {
    out.push('');
    out.push('| | action | resource | name | defined in |');
    out.push('|---|---|---|---|---|');
    for (const c of changes) {
      out.push(`| \`${SIGN[c.action]}\` | ${c.action} | \`${cell(`${c.kind}/${c.id}`)}\` | ${cell(c.name ?? '')} | ${cell(location(c) ?? '')} |`);
    }
    for (const c of changes) out.push('', ...details(c));
  } else if (orphans === undefined) {
    out.push('');
    out.push('No changes. The account matches the definitions.');
  }
  if (orphans !== undefined) {
    out.push('');
    out.push(`**${orphans}**`);
    out.push('');
    for (const o of plan.orphaned ?? []) out.push(`- \`${cell(orphanLabel(o))}\``);
  }
  if (plan.warnings.length > 0) {
    out.push('');
    out.push('**Warnings**');
    out.push('');
    for (const w of plan.warnings) out.push(`- ${w}`);
  }
  return out.join('\n');
}

const SIGN = { create: '+', update: '~', delete: '-', noop: ' ' } as const;

function details(c: PlannedChange): string[] {
  const lines = [`<details><summary><code>${SIGN[c.action]} ${c.action} ${html(`${c.kind}/${c.id}`)}</code>${c.name ? ` ${html(c.name)}` : ''}</summary>`, ''];
  const { ops, defaults } = shownOps(c);
  if (c.patch.length > 0) {
    lines.push('```diff');
    for (const op of ops) {
      const { sign, text } = describeOp(op);
      // A diff block colours lines by their first character: + added, - removed, ! changed.
      lines.push(`${sign === '~' ? '!' : sign} ${text}`);
    }
    if (defaults > 0) lines.push(defaultsLine(defaults));
    lines.push('```');
  }
  for (const note of c.notes ?? []) lines.push('', `> ${note}`);
  lines.push('', '</details>');
  return lines;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function html(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
