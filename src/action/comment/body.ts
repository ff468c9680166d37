import type { Plan, PlannedChange } from '../../plan/types.js';
import { changedFields, diffLines } from './diff.js';
import { orphanLine } from '../../render/values.js';
import { escapeCell, escapeHtml, fence, fitLines, link, size } from './markdown.js';

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
  const top = [opts.marker, opts.title, head.text].filter((s): s is string => s !== undefined).join('\n\n');
  if (changes.length === 0) return { text: `${top}\n`, level: 'full', omitted: 0, omittedDeletions: head.omittedDeletions };

  const room = opts.limit - size(top) - NOTE_RESERVE;
  for (const level of ['full', 'fields'] as const) {
    const details = level === 'full' ? changes.map((c) => detailsBlock(c, opts)).join('\n') : table(changes, opts, true).join('\n');
    if (size(details) <= room) {
      return { text: join(top, details, cutNote(level, 0, changes.length, head.omittedDeletions, opts)), level, omitted: 0, omittedDeletions: head.omittedDeletions };
    }
  }
  const rows = table(changes, opts, false);
  const [header, rule, ...body] = rows;
  const fitted = fitLines(body, room - size(header) - size(rule) - 2, (n) => `\n_…and ${n} more changes not listed._`);
  const text = join(top, [header, rule, ...fitted.lines].join('\n'), cutNote('table', fitted.left, changes.length, head.omittedDeletions, opts));
  return { text, level: 'table', omitted: fitted.left, omittedDeletions: head.omittedDeletions };
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
  // The line holds no user text (counts and a command), so it needs no escaping.
  if (orphans !== undefined) parts.push(`**${orphans}**`);
  if (plan.changedSince) {
    const { files, ref } = plan.changedSince;
    // A commit sha reads better short; branch and tag names stay whole.
    const shown = /^[0-9a-f]{40}$/.test(ref) ? ref.slice(0, 7) : ref;
    parts.push(`Only resources defined in the ${files.length} file${files.length === 1 ? '' : 's'} changed since \`${escapeHtml(shown)}\` were planned.`);
  }
  const deletions = changes.filter((c) => c.action === 'delete');
  let omittedDeletions = 0;
  if (deletions.length > 0) {
    const lines = deletions.map((c) => `- \`${escapeHtml(`${c.kind}/${c.id}`)}\`${c.name ? ` ${escapeHtml(c.name)}` : ''}`);
    const fitted = fitLines(lines, budget / 2, (n) => `- _…and ${n} more deletions._`);
    omittedDeletions = fitted.left;
    parts.push(`**Deletes** (${deletions.length}):\n\n${fitted.lines.join('\n')}`);
  }
  if (plan.warnings.length > 0) {
    const fitted = fitLines(plan.warnings.map((w) => `- ${escapeHtml(w)}`), budget / 4, (n) => `- _…and ${n} more warnings._`);
    parts.push(`**Warnings:**\n\n${fitted.lines.join('\n')}`);
  }
  return { text: parts.join('\n\n'), omittedDeletions };
}

function resourceLabel(c: PlannedChange): string {
  return `${c.kind}/${c.id}${c.name ? ` · ${c.name}` : ''}`;
}

function detailsBlock(c: PlannedChange, opts: BodyOptions): string {
  const place = opts.placeOf(c);
  const lines = [`<details><summary><code>${SIGN[c.action]}</code> ${escapeHtml(resourceLabel(c))}</summary>`, ''];
  if (place) lines.push(`Defined at ${link(place, opts.linkOf(c))}`, '');
  for (const note of c.notes ?? []) lines.push(`> ${escapeHtml(note)}`, '');
  lines.push(fence('diff', diffLines(c)), '', '</details>');
  return lines.join('\n');
}

function table(changes: PlannedChange[], opts: BodyOptions, withFields: boolean): string[] {
  const rows = withFields
    ? ['| | resource | defined at | changed fields |', '|---|---|---|---|']
    : ['| | resource | defined at |', '|---|---|---|'];
  for (const c of changes) {
    const place = opts.placeOf(c);
    const cells = [`\`${SIGN[c.action]}\``, escapeCell(resourceLabel(c)), place ? link(escapeCell(place), opts.linkOf(c)) : ''];
    if (withFields) cells.push(escapeCell(changedFields(c).join(', ')));
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
