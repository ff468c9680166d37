/** `--no-typescript`: refuse a project holding *.mac.ts files, whose code would run on load. */

/** Help text of the flag, the same on every command that loads a project. */
export const NO_TYPESCRIPT_HELP = 'refuse a project holding *.mac.ts files (they are code and run when loaded); for untrusted changes';
