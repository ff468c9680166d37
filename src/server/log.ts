/**
 * The service's event log: one line per event on stderr (check state changes, notifications
 * sent, retried or failed, runs shed), as text for a person or JSON for a log pipeline. Fields
 * are values the service chose to show: callers never pass a credential.
 */

export type LogFormat = 'text' | 'json';
export type LogLevel = 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface ServiceLog {
  /** Writes one event line; undefined fields are left out. */
  event(event: string, fields?: LogFields, level?: LogLevel): void;
}

/** Parses `--log-format`. */
export function parseLogFormat(value: string): LogFormat {
  if (value === 'text' || value === 'json') return value;
  throw new Error(`--log-format must be text or json, not "${value}"`);
}

/** A log writing lines in `format` through `write` (stderr by default), stamped by `now`. */
export function createLog(format: LogFormat, write: (line: string) => void = (l) => void process.stderr.write(l), now: () => number = Date.now): ServiceLog {
  return {
    event(event, fields = {}, level = 'info') {
      const time = new Date(now()).toISOString();
      const shown = Object.entries(fields).filter(([, v]) => v !== undefined);
      if (format === 'json') {
        write(`${JSON.stringify({ time, level, event, ...Object.fromEntries(shown) })}\n`);
        return;
      }
      const parts = shown.map(([k, v]) => `${k}=${textValue(v)}`);
      write(`${time} ${level} ${event}${parts.length > 0 ? ` ${parts.join(' ')}` : ''}\n`);
    },
  };
}

/** A log that writes nothing (in-process tests that do not read it). */
export const SILENT_LOG: ServiceLog = { event() {} };

// Bare when it is one plain word; otherwise quoted as JSON (newlines and quotes escaped), so
// one event stays one line whatever a check's name or a receiver's answer holds.
function textValue(v: string | number | boolean | null | undefined): string {
  if (typeof v !== 'string') return String(v);
  return /^[\w.:/@+-]+$/.test(v) ? v : JSON.stringify(v);
}
