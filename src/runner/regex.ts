import vm from 'node:vm';

/**
 * Regular expressions come from definitions (untrusted): a pattern such as `(a+)+$` backtracks
 * for minutes on a short answer and would stop every run of the process with it. Each match runs
 * in one reused V8 context under a time limit, which interrupts the regex engine itself.
 */
export const REGEX_TIME_LIMIT_MS = 100;

const context = vm.createContext(Object.create(null) as object);
const match = vm.runInContext('(function (p, s) { const m = new RegExp(p).exec(s); return m ? [m[0], m[1]] : null; })', context) as (
  pattern: string,
  text: string,
) => [string, string | undefined] | null;
const call = new vm.Script('match(pattern, text)');

/** A regex pattern ran longer than its time limit. */
export class RegexTimeoutError extends Error {
  constructor(readonly pattern: string) {
    super(`regex ${JSON.stringify(pattern.slice(0, 100))} ran over ${REGEX_TIME_LIMIT_MS} ms and was stopped`);
    this.name = 'RegexTimeoutError';
  }
}

/**
 * The first match of `pattern` in `text` as `[whole, group 1]`, or null. Throws a SyntaxError for
 * a bad pattern and a RegexTimeoutError when the match runs over the time limit.
 */
export function boundedRegexExec(pattern: string, text: string, timeoutMs = REGEX_TIME_LIMIT_MS): [string, string | undefined] | null {
  const sandbox = context as Record<string, unknown>;
  sandbox.match = match;
  sandbox.pattern = pattern;
  sandbox.text = text;
  try {
    const out = call.runInContext(context, { timeout: timeoutMs }) as [string, string | undefined] | null;
    // Values made in the context: copy them out as plain strings.
    return out === null ? null : [String(out[0]), out[1] === undefined ? undefined : String(out[1])];
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new RegexTimeoutError(pattern);
    // A bad pattern's SyntaxError belongs to the context's realm: give this realm's one.
    throw new SyntaxError(String((err as { message?: unknown }).message ?? err));
  } finally {
    sandbox.pattern = undefined;
    sandbox.text = undefined;
  }
}
