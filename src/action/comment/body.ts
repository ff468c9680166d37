import type { Plan, PlannedChange } from '../../plan/types.js';
import { highlightGroups, narrowedLine, shortRef } from '../../render/highlight.js';
import { changedFields, diffLines } from './diff.js';
import { orphanLabel, orphanLine } from '../../render/values.js';
import { cell, code, codeLink, fence, fitLines, htmlCode, size } from './markdown.js';

/** How much of the plan a body shows, from most to least. */
export type DetailLevel = 'full' | 'fields' | 'table';

/** How to build a plan body for one place (a pull request comment, a job summary). */
export interface BodyOptions {
  /** First line, e.g. the sticky comment's hidden marker. */
  marker?: string;
  /** Markdown heading line(s). */
  title: string;
  /** Size limit in UTF-8 bytes. */
  limit: number;
  /** Where a reader finds what was cut ("The full plan is in the job summary."). */
  elsewhere: string;
  /** URL of the defining file and line, when known. */
  linkOf(change: PlannedChange): string | undefined;
  /** The defining place as text (`checks/db.yaml:3`), when known. */
  placeOf(change: PlannedChange): string | undefined;
  /** The changed-since ref is the pull request's base: the highlighted files are "this PR's files". */
  sinceIsPullRequestBase?: boolean;
}

/** A run of changes under one heading (with --changed-since: this PR's files, then the rest). */
interface Section {
  title?: string;
  changes: PlannedChange[];
}

/** A built body and what had to be cut to fit it. */
export interface PlanBody {
  text: string;
  level: DetailLevel;
  /** Changes left out of the table altogether (only at level `table`). */
  omitted: number;
  /** Deletions left out of the deletion list. */
  omittedDeletions: number;
}

const SIGN: Record<PlannedChange['action'], string> = { create: '+ create', update: '~ update', delete: '- delete', noop: 'noop' };
// The head (counts, deletions, warnings) may take at most this share of the limit; the rest is for details.
const HEAD_SHARE = 0.5;
// Room kept for the closing note that says what was cut.
const NOTE_RESERVE = 600;

/**
 * Builds a markdown body for a plan within `limit` bytes: the counts, then the deletions, then
 * one `<details>` block per changed resource with its diff. When that does not fit it degrades
 * to changed fields only, then to the table only (cut to fit), and says what was cut.
 */
export function buildPlanBody(plan: Plan, opts: BodyOptions): PlanBody {
  const changes = plan.changes.filter((c) => c.action !== 'noop');
  const headBudget = Math.floor((opts.limit - NOTE_RESERVE) * HEAD_SHARE);
  const head = headSection(plan, changes, opts, headBudget);
  const narrowed = narrowedLine(plan, (ref) => code(shortRef(ref)));
  const top = [opts.marker, narrowed && `**${narrowed}**`, opts.title, head.text].filter((s): s is string => typeof s === 'string' && s !== '').join('\n\n');
  if (changes.length === 0) return { text: `${top}\n`, level: 'full', omitted: 0, omittedDeletions: head.omittedDeletions };

  const sections = sectionsOf(plan, changes, opts);
  const room = opts.limit - size(top) - NOTE_RESERVE;
  for (const level of ['full', 'fields'] as const) {
    const details = sections
      .map((s) => [s.title, level === 'full' ? s.changes.map((c) => detailsBlock(c, opts)).join('\n') : table(s.changes, opts, true).join('\n')].filter(Boolean).join('\n\n'))
      .join('\n\n');
    if (size(details) <= room) {
      return { text: join(top, details, cutNote(level, 0, changes.length, head.omittedDeletions, opts)), level, omitted: 0, omittedDeletions: head.omittedDeletions };
    }
  }
  // The table level: each section's title and table, rows cut (in order) where the budget ends.
  const lines: string[] = [];
  const isRow = new Set<number>();
  for (const s of sections) {
    if (lines.length > 0) lines.push('');
    if (s.title) lines.push(s.title, '');
    const [header, rule, ...rows] = table(s.changes, opts, false);
    lines.push(header, rule);
    for (const r of rows) {
      isRow.add(lines.length);
      lines.push(r);
    }
  }
  const budget = room - 2;
  const more = (n: number) => `\n_…and ${n} more changes not listed._`;
  let used = size(more(changes.length)) + 1;
  let taken = 0;
  for (const l of lines) {
    if (used + size(l) + 1 > budget) break;
    used += size(l) + 1;
    taken++;
  }
  const left = [...isRow].filter((i) => i >= taken).length;
  const shown = left > 0 ? [...lines.slice(0, taken), more(left)] : lines;
  const text = join(top, shown.join('\n'), cutNote('table', left, changes.length, head.omittedDeletions, opts));
  return { text, level: 'table', omitted: left, omittedDeletions: head.omittedDeletions };
}

/** One section of everything, or with --changed-since: the changes of the changed files, then the rest. */
function sectionsOf(plan: Plan, changes: PlannedChange[], opts: BodyOptions): Section[] {
  const groups = highlightGroups(plan, changes);
  if (!groups) return [{ changes }];
  const ref = code(shortRef(plan.changedSince!.ref));
  const n = plan.changedSince!.files.length;
  const inFiles = opts.sinceIsPullRequestBase ? "In this pull request's files" : `In the ${n} file${n === 1 ? '' : 's'} changed since ${ref}`;
  const elsewhere = opts.sinceIsPullRequestBase
    ? "Also differs in the account (not in this PR's files)"
    : `Also differs in the account (not in the files changed since ${ref})`;
  return [
    { title: `#### ${inFiles} (${groups.inFiles.length})`, changes: groups.inFiles },
    { title: `#### ${elsewhere} (${groups.elsewhere.length})`, changes: groups.elsewhere },
  ].filter((s) => s.changes.length > 0);
}

function join(...parts: string[]): string {
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

function headSection(plan: Plan, changes: PlannedChange[], opts: BodyOptions, budget: number): { text: string; omittedDeletions: number } {
  const { create, update, delete: del, noop } = plan.summary;
  const parts: string[] = [];
  const orphans = orphanLine(plan);
  parts.push(
    changes.length === 0 && orphans === undefined
      ? `**No changes.** The account matches the definitions (${noop} unchanged).`
      : `**Plan:** ${create} to create, ${update} to update, ${del} to delete, ${noop} unchanged.`,
  );
  // The line holds no user text (counts and a command), so it needs no escaping; the list does.
  if (orphans !== undefined) {
    const fitted = fitLines((plan.orphaned ?? []).map((o) => `- ${code(orphanLabel(o))}`), budget / 4, (n) => `- _…and ${n} more orphaned._`);
    parts.push(fitted.lines.length > 0 ? `**${orphans}**\n\n${fitted.lines.join('\n')}` : `**${orphans}**`);
  }
  if (plan.changedSince && !plan.changedSince.only) {
    const { files, ref } = plan.changedSince;
    const where = opts.sinceIsPullRequestBase
      ? `this pull request's ${files.length} changed file${files.length === 1 ? '' : 's'}`
      : `the ${files.length} file${files.length === 1 ? '' : 's'} changed since ${code(shortRef(ref))}`;
    const inFiles = changes.filter((c) => c.inChangedFiles === true).length;
    const elsewhere = changes.length - inFiles;
    // Both counts in the head, so drift outside the files shows even when the lists are cut.
    parts.push(
      `The plan covers the whole project, as a merge applies it: ${inFiles} change${inFiles === 1 ? ' is' : 's are'} defined in ${where} (listed first), ` +
        `**${elsewhere} more differ${elsewhere === 1 ? 's' : ''} in the account outside ${opts.sinceIsPullRequestBase ? 'them' : 'those files'}**.`,
    );
  }
  const deletions = changes.filter((c) => c.action === 'delete');
  let omittedDeletions = 0;
  if (deletions.length > 0) {
    const lines = deletions.map((c) => `- ${code(`${c.kind}/${c.id}`)}${c.name ? ` ${code(c.name)}` : ''}`);
    const fitted = fitLines(lines, budget / 2, (n) => `- _…and ${n} more deletions._`);
    omittedDeletions = fitted.left;
    parts.push(`**Deletes** (${deletions.length}):\n\n${fitted.lines.join('\n')}`);
  }
  if (plan.warnings.length > 0) {
    const fitted = fitLines(plan.warnings.map((w) => `- ${code(w)}`), budget / 4, (n) => `- _…and ${n} more warnings._`);
    parts.push(`**Warnings:**\n\n${fitted.lines.join('\n')}`);
  }
  return { text: parts.join('\n\n'), omittedDeletions };
}

/** The resource in HTML (`<summary>`): its kind/id and name, each escaped in `<code>`. */
function resourceHtml(c: PlannedChange): string {
  return `${htmlCode(`${c.kind}/${c.id}`)}${c.name ? ` · ${htmlCode(c.name)}` : ''}`;
}

/** The resource in a table cell. */
function resourceCell(c: PlannedChange): string {
  return `${cell(`${c.kind}/${c.id}`)}${c.name ? ` · ${cell(c.name)}` : ''}`;
}

function detailsBlock(c: PlannedChange, opts: BodyOptions): string {
  const place = opts.placeOf(c);
  const lines = [`<details><summary><code>${SIGN[c.action]}</code> ${resourceHtml(c)}</summary>`, ''];
  if (place) lines.push(`Defined at ${codeLink(place, opts.linkOf(c))}`, '');
  for (const note of c.notes ?? []) lines.push(`> ${code(note)}`, '');
  lines.push(fence('diff', diffLines(c)), '', '</details>');
  return lines.join('\n');
}

function table(changes: PlannedChange[], opts: BodyOptions, withFields: boolean): string[] {
  const rows = withFields
    ? ['| | resource | defined at | changed fields |', '|---|---|---|---|']
    : ['| | resource | defined at |', '|---|---|---|'];
  for (const c of changes) {
    const place = opts.placeOf(c);
    const cells = [`\`${SIGN[c.action]}\``, resourceCell(c), place ? codeLink(place, opts.linkOf(c)).replace(/\|/g, '\\|') : ''];
    if (withFields) cells.push(cell(changedFields(c).join(', ')));
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return rows;
}

function cutNote(level: DetailLevel, omitted: number, total: number, omittedDeletions: number, opts: BodyOptions): string {
  const cut: string[] = [];
  if (level === 'fields') cut.push('the diffs were left out (changed fields are listed instead)');
  if (level === 'table') cut.push('the diffs and changed fields were left out');
  if (omitted > 0) cut.push(`${omitted} of ${total} changes are not listed`);
  if (omittedDeletions > 0) cut.push(`${omittedDeletions} deletions are not listed`);
  if (cut.length === 0) return '';
  const limitKb = Math.floor(opts.limit / 1000);
  return `> [!NOTE]\n> Cut to stay under ${limitKb} kB: ${cut.join('; ')}. ${opts.elsewhere}`;
}
