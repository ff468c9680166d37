/**
 * The few error classes of mac. Each keeps its `cause`; `hint` says what the user can do.
 * HTTP errors live in src/api/errors.ts and extend MacError.
 */

/**
 * One problem of a 400 validation answer of the monitoring API (api-decisions §1.3): a dot-joined
 * path (`""` = the whole body) and what is wrong. The service writes them, the API client reads them.
 */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Options shared by every mac error. */
export interface MacErrorOptions {
  cause?: unknown;
  hint?: string;
  exitCode?: number;
}

/** Base of every error mac raises on purpose; printed as `error: message` without a stack. */
export class MacError extends Error {
  readonly hint?: string;
  readonly exitCode: number;
  constructor(message: string, options: MacErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** The command line or its options are wrong. */
export class UsageError extends MacError {}

/** The definitions are invalid; their diagnostics have been printed together (and travel here for JSON output). */
export class ValidationFailed extends MacError {
  readonly diagnostics: readonly unknown[];
  constructor(message: string, options: MacErrorOptions & { diagnostics?: readonly unknown[] } = {}) {
    super(message, options);
    this.diagnostics = options.diagnostics ?? [];
  }
}

/** A run refused to go on for a safety reason (stale plan, too many deletes, no --yes). */
export class Refused extends MacError {}

/** A bug in mac itself: the message asks for a report. */
export class InternalError extends MacError {
  constructor(message: string, options: MacErrorOptions = {}) {
    super(`internal error: ${message}`, {
      ...options,
      hint: options.hint ?? 'this is a bug in mac; please report it with the command you ran',
    });
  }
}
