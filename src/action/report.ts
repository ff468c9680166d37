import * as core from '@actions/core';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Plan } from '../plan/types.js';
import { capAnnotations, type Annotation } from './annotations.js';
import { size } from './comment/markdown.js';
import { scrub } from './scrub.js';

/** GitHub refuses a step summary over 1 MiB; keep clear of it (other sections share the file). */
export const SUMMARY_LIMIT = 1_000_000;
/** GitHub refuses comment bodies over 65,536 characters; keep a margin. */
export const COMMENT_LIMIT = 60_000;

/** Sets the plan outputs: has-changes, create, update, delete, plan-file. */
export function setPlanOutputs(plan: Plan, planFile: string): void {
  const { create, update, delete: del } = plan.summary;
  core.setOutput('has-changes', String(create + update + del > 0));
  core.setOutput('create', String(create));
  core.setOutput('update', String(update));
  core.setOutput('delete', String(del));
  core.setOutput('plan-file', planFile);
}

/** Writes the plan as JSON (the `mac plan --out` format) and returns its path. */
export async function writePlanFile(plan: Plan, file: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(plan, null, 2)}\n`, 'utf8');
  return file;
}

/** Appends markdown to the job summary, cut (with a note) so the summary stays under its limit. */
export async function appendSummary(markdown: string): Promise<void> {
  let text = scrub(markdown);
  if (size(text) > SUMMARY_LIMIT) {
    const note = '\n> [!NOTE]\n> Cut here to stay under the 1 MiB job summary limit.\n';
    const keep = Buffer.from(text, 'utf8').subarray(0, SUMMARY_LIMIT - size(note)).toString('utf8').replace(/\uFFFD$/, '');
    text = keep.slice(0, keep.lastIndexOf('\n') + 1) + note;
  }
  await core.summary.addRaw(text, true).write();
  core.summary.emptyBuffer();
}

/** Emits annotations (capped per level) as workflow commands. */
export function annotate(annotations: Annotation[]): void {
  const { kept, dropped } = capAnnotations(annotations);
  for (const a of kept) {
    const title = a.properties.title === undefined ? {} : { title: scrub(a.properties.title) };
    core[a.level](scrub(a.message), { ...a.properties, ...title });
  }
  if (dropped > 0) core.info(`${dropped} more annotations not emitted; they are in the job summary.`);
}

/** A warning in the log and on the run (scrubbed like every output). */
export function warn(message: string): void {
  core.warning(scrub(message));
}
