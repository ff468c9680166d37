import type { Plan, PlannedChange } from '../plan/types.js';
import { highlightGroups, narrowedLine, shortRef } from './highlight.js';
import { cell, code, fence, htmlCode } from './md-escape.js';
import { defaultsLine, describeOp, location, orphanLabel, orphanLine, shownOps, summaryLine, visibleChanges } from './values.js';

/**
 * The plan for a pull-request comment: a summary table, then one `<details>` block per changed
 * resource. Every name, id, value, note and path is escaped (see md-escape.ts): definitions
 * come from pull requests, and this markdown is posted where others read it.
 */
export function renderMarkdown(plan: Plan): string {
  const out: string[] = [];
  const changes = visibleChanges(plan);
  const narrowed = narrowedLine(plan, code);
  if (narrowed) out.push(`**${narrowed}**`, '');
  out.push(`### mac plan: ${code(plan.project)}`);
  out.push('');
  out.push(`**${summaryLine(plan)}** ${plan.summary.noop} unchanged.`);
  const orphans = orphanLine(plan);
  const groups = highlightGroups(plan, changes);
  if (changes.length > 0) {
    const sections = groups
      ? [
          { title: `**In the ${plan.changedSince!.files.length} file(s) changed since ${code(shortRef(plan.changedSince!.ref))}** (${groups.inFiles.length})`, changes: groups.inFiles },
          { title: `**Also differs in the account (not in the files changed since ${code(shortRef(plan.changedSince!.ref))})** (${groups.elsewhere.length})`, changes: groups.elsewhere },
        ].filter((s) => s.changes.length > 0)
      : [{ title: undefined, changes }];
    for (const section of sections) {
      out.push('');
      if (section.title) out.push(section.title, '');
      out.push('| | action | resource | name | defined in |');
      out.push('|---|---|---|---|---|');
      for (const c of section.changes) {
        out.push(`| \`${SIGN[c.action]}\` | ${c.action} | ${cell(`${c.kind}/${c.id}`)} | ${cell(c.name ?? '')} | ${cell(location(c) ?? '')} |`);
      }
      for (const c of section.changes) out.push('', ...details(c));
    }
  } else if (orphans === undefined) {
    out.push('');
    out.push('No changes. The account matches the definitions.');
  }
  if (orphans !== undefined) {
    out.push('');
    out.push(`**${orphans}**`);
    out.push('');
    for (const o of plan.orphaned ?? []) out.push(`- ${code(orphanLabel(o))}`);
  }
  if (plan.warnings.length > 0) {
    out.push('');
    out.push('**Warnings**');
    out.push('');
    for (const w of plan.warnings) out.push(`- ${code(w)}`);
  }
  return out.join('\n');
}

const SIGN = { create: '+', update: '~', delete: '-', noop: ' ' } as const;

function details(c: PlannedChange): string[] {
  const lines = [`<details><summary><code>${SIGN[c.action]} ${c.action}</code> ${htmlCode(`${c.kind}/${c.id}`)}${c.name ? ` ${htmlCode(c.name)}` : ''}</summary>`, ''];
  const { ops, defaults } = shownOps(c);
  if (c.patch.length > 0) {
    const diff: string[] = [];
    for (const op of ops) {
      const { sign, text } = describeOp(op);
      // A diff block colours lines by their first character: + added, - removed, ! changed.
      diff.push(`${sign === '~' ? '!' : sign} ${text}`);
    }
    if (defaults > 0) diff.push(defaultsLine(defaults));
    lines.push(fence('diff', diff));
  }
  for (const note of c.notes ?? []) lines.push('', `> ${code(note)}`);
  lines.push('', '</details>');
  return lines;
}
