import type { CliContext } from '../context.js';
import { TEST_CONCURRENCY, TEST_FORMATS } from '../declare/test.js';
import { MAX_CONCURRENCY, parseChoice, parseCount } from '../../config/options.js';
import { runSuite, testExitCode } from '../../testrun/suite.js';
import { stopMultiStepRuns } from '../../runner/index.js';
import { renderTestJson, renderTestText } from '../../testrun/render.js';
import { loadValid } from '../options.js';
import { usageHint } from '../help.js';

export interface TestFlags {
  format?: string;
  concurrency?: string;
  typescript: boolean;
}

/** `mac test [DIR]`: run the TCP, DNS, URL, API, ICMP, multi-step and browser checks of DIR once from this machine; exit 0 all pass, 1 any fail. */
export async function run(ctx: CliContext, dir: string, flags: TestFlags): Promise<void> {
  const { output } = ctx;
  const hint = usageHint('test');
  const format = parseChoice('--format', flags.format, TEST_FORMATS, 'text', { hint });
  const concurrency = parseCount('--concurrency', flags.concurrency, { fallback: TEST_CONCURRENCY, min: 1, max: MAX_CONCURRENCY, hint });
  const project = await loadValid(ctx, dir, flags.typescript, 'no check was run');
  // Multi-step runs are process groups of their own: Ctrl-C (or a CI job's SIGTERM) ends them too.
  const interrupted = (signal: NodeJS.Signals, code: number) => () => {
    stopMultiStepRuns();
    output.info(`mac test: stopped by ${signal}`);
    process.exit(code);
  };
  const onInt = interrupted('SIGINT', 130);
  const onTerm = interrupted('SIGTERM', 143);
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  // Scripts run in the sandbox where bubblewrap works; elsewhere as the project's own code
  // (like a *.mac.ts file), with a notice. --no-typescript skips them (runSuite).
  const run = { scripts: { allowUnsandboxed: true, onUnsandboxed: (message: string) => output.info(`mac test: ${message}`) } };
  const report = await runSuite(project.definitions, { concurrency, scripts: flags.typescript, run }).finally(() => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  });
  output.result(format === 'json' ? renderTestJson(report) : renderTestText(report, output.c));
  ctx.exit(testExitCode(report));
}
