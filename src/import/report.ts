import { describeDifferences } from './verify.js';
import type { ImportResult } from './run.js';

/** The report of an import, split by stream: results for stdout, problems for stderr. */
export interface ImportReport {
  stdout: string[];
  stderr: string[];
  /** 0 when the round trip holds, 1 when any written resource differs from the account. */
  exitCode: number;
}

/** Renders what an import did; a pure function of its result (no value of a sensitive field is in a result). */
export function renderImport(r: ImportResult, dir: string): ImportReport {
  const out: string[] = [];
  const err: string[] = [];
  const n = r.imported.length;
  out.push(n === 0 ? `Nothing to import into ${dir}: every resource of the account is already defined.` : `Imported ${n} resource${n === 1 ? '' : 's'} into ${dir} (project "${r.project}"):`);
  const width = Math.max(0, ...r.files.map((f) => f.path.length));
  const what = (f: ImportResult['files'][number]) =>
    f.kind ? `${f.documents} ${f.kind}` : f.path.endsWith('.js') ? 'script' : f.path.endsWith('.json') ? 'JSON Schema (editor support)' : `project ${r.project}`;
  // Definitions first, then their scripts, the project file and the editor schemas.
  const rank = (f: ImportResult['files'][number]) => (f.kind ? 0 : f.path.endsWith('.js') ? 1 : f.path.endsWith('.yaml') ? 2 : 3);
  const listed = r.files.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i);
  for (const { f } of listed) out.push(`  ${f.path.padEnd(width)}  ${what(f)}`);
  if (r.alreadyDefined > 0) out.push(`${r.alreadyDefined} resource${r.alreadyDefined === 1 ? ' was' : 's were'} already defined and left as they are.`);

  for (const s of r.skipped) err.push(`warning: ${s.kind} "${s.name}" (${s.remoteId}) not imported: ${s.reason}`);
  for (const u of r.unsupported) err.push(`warning: check "${u.name}" (${u.id}) not imported: mac has no definition kind for ${u.checkType} checks`);

  if (r.env.length > 0) {
    out.push('');
    out.push('Set these environment variables before `mac plan` and `mac apply` (their values are not written anywhere):');
    const w = Math.max(...r.env.map((e) => e.name.length));
    for (const e of r.env) {
      const what = `${e.kind}/${e.id} ${e.path}`;
      const note = e.unreadable ? 'secret: the API does not return it, set the real value' : 'its current value is in the account';
      out.push(`  ${e.name.padEnd(w)}  ${what} (${note})`);
    }
  }

  const rt = r.roundTrip;
  for (const w of rt.warnings) err.push(`warning: ${w}`);
  out.push('');
  const unreadable = r.env.filter((e) => e.unreadable).map((e) => e.name);
  const unread = unreadable.length > 0 ? ` Secret values not compared (the API does not return them): ${unreadable.join(', ')}.` : '';
  if (rt.differences.length > 0) {
    err.push(`error: the written definitions differ from the account in ${rt.differences.length} resource${rt.differences.length === 1 ? '' : 's'}:`);
    err.push(...describeDifferences(rt.differences));
    err.push('  hint: the files are written; this is a bug in mac import, please report it with the lines above');
    out.push(`Round trip: FAILED, see the differences above.${unread}`);
    return { stdout: out, stderr: err, exitCode: 1 };
  }
  const adopted = rt.adoptions.length;
  out.push(
    `Round trip: the written definitions match the account.${adopted > 0 ? ` ${adopted} check${adopted === 1 ? '' : 's'} will be adopted (ownership tag added) by the next \`mac apply\`.` : ''}${unread}`,
  );
  if (rt.unrelated > 0) out.push(`The project has ${rt.unrelated} other pending change${rt.unrelated === 1 ? '' : 's'} in definitions import did not write; see \`mac plan\`.`);
  return { stdout: out, stderr: err, exitCode: 0 };
}
