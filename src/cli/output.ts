import pc from 'picocolors';

/**
 * The one place output goes through: results to stdout, progress and diagnostics to stderr.
 * Colour and redrawn progress only on a TTY and never with NO_COLOR.
 */
export interface Output {
  /** Writes a result line (or block) to stdout. */
  result(text: string): void;
  /** Writes a diagnostic or progress line to stderr. */
  info(text: string): void;
  /** Redraws a single live progress line on a TTY; a plain stderr line otherwise. */
  progress(text: string): void;
  /** Ends a live progress line so that the next output starts on a fresh line. */
  endProgress(): void;
  /** Whether colour may be used on stdout. */
  readonly color: boolean;
  /** Whether stderr is an interactive terminal (live progress, prompts). */
  readonly interactive: boolean;
  /** Colour helpers for stdout text; identity functions when colour is off. */
  readonly c: ReturnType<typeof pc.createColors>;
  /** Colour helpers for stderr text (diagnostics, errors, progress): stderr may be a file while stdout is a TTY. */
  readonly cErr: ReturnType<typeof pc.createColors>;
  /** Whether anything was written to stdout (a JSON error document must not follow a result). */
  readonly wroteResult: boolean;
}

/** Streams and environment an Output writes to; tests pass fakes. */
export interface OutputTarget {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
}

/** Builds the Output for a run. */
export function createOutput(target: OutputTarget): Output {
  const noColor = target.env.NO_COLOR !== undefined && target.env.NO_COLOR !== '';
  const color = !noColor && target.stdout.isTTY === true;
  const interactive = target.stderr.isTTY === true;
  const colorErr = !noColor && interactive;
  let live = false;
  let wroteResult = false;
  const endProgress = () => {
    if (live) target.stderr.write('\n');
    live = false;
  };
  return {
    color,
    interactive,
    c: pc.createColors(color),
    cErr: pc.createColors(colorErr),
    get wroteResult() {
      return wroteResult;
    },
    result(text) {
      endProgress();
      wroteResult = true;
      target.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    info(text) {
      endProgress();
      target.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    progress(text) {
      if (interactive) {
        target.stderr.write(`\r\x1b[2K${text}`);
        live = true;
      } else {
        target.stderr.write(`${text}\n`);
      }
    },
    endProgress,
  };
}
