/**
 * A state file or database the service refuses to start on (corrupt journal, unknown file, newer
 * schema). The message names the file (and line); `hint` says what to do. Nothing was changed.
 */
export class StateError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'StateError';
  }
}
