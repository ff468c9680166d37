import type { ChangeAction } from '../plan/types.js';
import type { Kind } from '../schema/kinds.js';
import type { ChangeKey } from './graph.js';

/** How one planned change ended. */
export type ChangeStatus = 'applied' | 'failed' | 'skipped';

/** The outcome of one planned change. */
export interface ChangeOutcome {
  key: ChangeKey;
  action: Exclude<ChangeAction, 'noop'>;
  kind: Kind;
  id: string;
  name?: string;
  status: ChangeStatus;
  /** API id after the change (the created id for creates). */
  remoteId?: string | number;
  /** Why it failed, for people (never holds a secret value). */
  error?: string;
  hint?: string;
  /** For skipped changes: the failed or skipped changes it needed. */
  skippedBecause?: ChangeKey[];
  /** For skipped changes not blocked by another: why they were not attempted. */
  skipReason?: string;
  /** Remarks, e.g. a create whose lost response was reconciled with the object found live. */
  notes?: string[];
}

/** A difference left after apply between a touched object and its definition: a normalization bug. */
export interface ConvergenceIssue {
  kind: Kind;
  id: string;
  /** JSON pointer of the field that still differs ('' for the whole object, e.g. missing). */
  field: string;
  message: string;
}

/** What `mac apply` did: one outcome per change, plus the convergence self-check. */
export interface ApplyResult {
  project: string;
  apiUrl: string;
  outcomes: ChangeOutcome[];
  summary: { applied: number; failed: number; skipped: number; unchanged: number };
  /** Absent when the check did not run (nothing applied, or the run stopped before it). */
  convergence?: { checked: number; issues: ConvergenceIssue[] };
  /** Why the project's ownership record could not be written after the run (the run then fails). */
  recordError?: string;
  durationMs: number;
  requests: number;
}

/** Counts outcomes by status. */
export function summarize(outcomes: readonly ChangeOutcome[], unchanged: number): ApplyResult['summary'] {
  const summary = { applied: 0, failed: 0, skipped: 0, unchanged };
  for (const o of outcomes) summary[o.status]++;
  return summary;
}

/** Whether the run as a whole succeeded (exit 0): nothing failed or skipped and the account converged. */
export function succeeded(result: ApplyResult): boolean {
  return result.summary.failed === 0 && result.summary.skipped === 0 && (result.convergence?.issues.length ?? 0) === 0 && result.recordError === undefined;
}
