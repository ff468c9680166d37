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
