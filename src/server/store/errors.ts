import { MacError } from '../../errors.js';

/**
 * A state file or database the service refuses to start on (corrupt journal, unknown file, newer
 * schema, cannot open). The message names the file (and line); `hint` says what to do. Nothing
 * was changed.
 */
export class StateError extends MacError {
  constructor(message: string, hint?: string, options: { cause?: unknown } = {}) {
    super(message, { hint, cause: options.cause });
  }
}

/**
 * The database cannot answer now (PostgreSQL down, unreachable, restarting, or a statement timed
 * out). Requests answer 503 and the background work skips its turn; the next call tries again.
 * The message names what failed, never the URL or its password.
 */
export class DatabaseUnavailable extends Error {
  constructor(reason: string) {
    super(`the database is unavailable: ${reason}`);
    this.name = 'DatabaseUnavailable';
  }
}

/** A uniqueness rule failed inside the commit (`index`: the rule's position in the commit's `u`). */
export class UniqueTaken extends Error {
  constructor(readonly index: number) {
    super(`a uniqueness rule of the commit failed (key ${index})`);
    this.name = 'UniqueTaken';
  }
}

/**
 * A compare-and-set of the commit failed: the record named by its expectation `index` (its
 * position in the commit's `e`) no longer has the revision the writer read. Nothing was applied;
 * the writer reads the record again and decides again.
 */
export class StaleWrite extends Error {
  constructor(readonly index: number) {
    super(`a record the commit expected unchanged was changed meanwhile (expectation ${index})`);
    this.name = 'StaleWrite';
  }
}

/**
 * A read of run data (an indexed kind) that names no bound: listing a kind whole, or a query
 * without `limit`, or with more than MAX_RUN_READ. A programming error: every read of run data
 * says how much it reads at most, so that no request reads a check's whole history.
 */
export class UnboundedRead extends Error {
  constructor(kind: string, why: string) {
    super(`unbounded read of run data (${kind}): ${why}`);
    this.name = 'UnboundedRead';
  }
}
