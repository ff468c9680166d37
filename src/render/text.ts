import type { Colors } from './index.js';
import type { Plan, PlannedChange } from '../plan/types.js';
import { highlightGroups, narrowedLine } from './highlight.js';
import { defaultsLine, describeOp, formatValue, location, orphanLabel, orphanLine, shownOps, summaryLine, visibleChanges } from './values.js';

const SIGN = { create: '+', update: '~', delete: '-', noop: ' ' } as const;
// Values of a create are shown on one line each and cut, since every field is new anyway.
const CREATE_VALUE_MAX = 100;

/** The plan as terraform-like text: only what changes, field by field; unchanged resources counted. */
export function renderText(plan: Plan, c: Colors): string {
  const colour = { create: c.green, update: c.yellow, delete: c.red, noop: (s: string) => s } as const;
  const lines: string[] = [];
  const narrowed = narrowedLine(plan);
  if (narrowed) lines.push(c.yellow(narrowed));
  lines.push(`mac plan for project ${c.bold(plan.project)} against ${plan.apiUrl}`);
  const changes = visibleChanges(plan);
  // With --changed-since: the changes of the changed files first, then everything else that differs.
  const groups = highlightGroups(plan, changes);
  const headingOf = new Map<PlannedChange, string>();
  if (groups) {
    const since = plan.changedSince!;
    if (groups.inFiles.length > 0) headingOf.set(groups.inFiles[0], `In the ${since.files.length} file(s) changed since ${since.ref}:`);
    if (groups.elsewhere.length > 0) headingOf.set(groups.elsewhere[0], `Also differs in the account (not in the files changed since ${since.ref}):`);
  }
  for (const change of groups ? [...groups.inFiles, ...groups.elsewhere] : changes) {
    lines.push('');
    const section = headingOf.get(change);
    if (section) lines.push(c.bold(section), '');
    lines.push(colour[change.action](`  ${SIGN[change.action]} ${change.action} ${heading(change)}`));
    const { ops, defaults } = shownOps(change);
    for (const op of ops) {
      const { sign, text } = describeOp(op, change.action === 'create' ? CREATE_VALUE_MAX : Infinity);
      lines.push(`      ${colourSign(sign, c)} ${text}`);
    }
    if (defaults > 0) lines.push(c.dim(`      ${defaultsLine(defaults)}`));
    for (const note of change.notes ?? []) lines.push(c.dim(`      note: ${note}`));
  }
  const quietNotes = plan.changes.filter((ch) => ch.action === 'noop' && ch.notes?.length);
  if (quietNotes.length > 0) {
    lines.push('');
    lines.push('Unchanged, with remarks:');
    for (const ch of quietNotes) for (const note of ch.notes!) lines.push(c.dim(`  ${ch.kind}/${ch.id}: ${note}`));
  }
  if (plan.blockers && plan.blockers.length > 0) {
    lines.push('');
    lines.push(c.red('Removed first, so that the deletes succeed (mac does not manage them):'));
    for (const b of plan.blockers) {
      const what = `${b.type}${b.name === undefined ? '' : ` ${JSON.stringify(b.name)}`} [${String(b.remoteId)}]`;
      lines.push(b.action === 'delete' ? `  ${c.red('- delete')} ${what}  (blocks ${b.blocks})` : `  ${c.yellow('~ detach')} ${what} from this project's services; it stays for the others  (blocks ${b.blocks})`);
    }
  }
  if (plan.warnings.length > 0) {
    lines.push('');
    lines.push(c.yellow('Warnings:'));
    for (const w of plan.warnings) lines.push(c.yellow(`  ! ${w}`));
  }
  const orphans = orphanLine(plan);
  if (orphans !== undefined) {
    lines.push('');
    lines.push(c.yellow('Orphaned (owned by this project, no longer defined):'));
    for (const o of plan.orphaned ?? []) lines.push(c.yellow(`  ? ${orphanLabel(o)}`));
  }
  lines.push('');
  if (changes.length === 0 && orphans === undefined) lines.push(c.green('No changes. The account matches the definitions.'));
  else if (changes.length === 0) lines.push('No changes to apply.');
  lines.push(`${c.bold(summaryLine(plan))} ${plan.summary.noop} unchanged.`);
  if (plan.blockers && plan.blockers.length > 0) lines.push(c.red(`And ${plan.blockers.length} incident${plan.blockers.length === 1 ? '' : 's'} or subscription${plan.blockers.length === 1 ? '' : 's'} removed first.`));
  if (orphans !== undefined) lines.push(c.yellow(orphans));
  return lines.join('\n');
}

function heading(change: PlannedChange): string {
  const where = location(change);
  const name = change.name === undefined ? '' : ` ${formatValue(change.name)}`;
  const remote = change.remoteId === undefined ? '' : ` [${String(change.remoteId)}]`;
  return `${change.kind}/${change.id}${name}${remote}${where ? `  (${where})` : ''}`;
}

function colourSign(sign: '+' | '-' | '~', c: Colors): string {
  return sign === '+' ? c.green(sign) : sign === '-' ? c.red(sign) : c.yellow(sign);
}
