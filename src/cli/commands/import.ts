import { mkdir } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { RegisterCommand } from '../context.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import { MAX_CONCURRENCY, parseCount, rateLimitFrom } from '../../config/options.js';
import { concurrencyOption, NO_TYPESCRIPT_HELP, rateLimitOption, usageHint, withConnectionOptions } from '../options.js';
import { ApiClient } from '../../api/index.js';
import { loadProject } from '../../config/load.js';
import { renderImport } from '../../import/report.js';
import { runImport } from '../../import/run.js';
import { selectKinds } from '../../import/select.js';
import { createPlan } from '../../plan/index.js';

interface ImportFlags extends ConnectionFlags {
  out: string;
  kind?: string[];
  project?: string;
  concurrency?: string;
  rateLimit?: string;
  typescript: boolean;
}

/** API lists `mac import` reads at once unless --concurrency says otherwise. */
const IMPORT_CONCURRENCY = 4;

/** `mac import [--out DIR] [--kind KIND ...]`: write definitions for what lives in the account, then prove them. */
export const register: RegisterCommand = (program, ctx) => {
  withConnectionOptions(
    program
      .command('import')
      .description('write definitions for what lives in the account, then plan them against it to prove they match')
      .option('--out <dir>', 'project directory to write into (created when missing)', '.')
      .option('--kind <kind...>', 'kinds to import, repeatable or comma-separated (default: all)')
      .option('--project <name>', 'project name of a new mac.config.yaml (default: the directory name)')
      .addOption(concurrencyOption('API lists read', IMPORT_CONCURRENCY))
      .addOption(rateLimitOption())
      .option('--no-typescript', NO_TYPESCRIPT_HELP),
  ).action(async (flags: ImportFlags) => {
    const kinds = selectKinds(flags.kind);
    const concurrency = parseCount('--concurrency', flags.concurrency, { fallback: IMPORT_CONCURRENCY, min: 1, max: MAX_CONCURRENCY, hint: usageHint('import') });
    const rateLimit = rateLimitFrom(flags.rateLimit, ctx.env);
    const dir = resolve(ctx.cwd, flags.out);
    await mkdir(dir, { recursive: true });
    const connection = resolveConnection(flags, ctx.env);
    // One client for the whole run: its token bucket paces the fetch and the round-trip plan together.
    const client = new ApiClient({ ...connection, rateLimit });
    try {
      const result = await runImport(
        { dir, kinds, project: flags.project, env: ctx.env, client, concurrency, typescript: flags.typescript, onProgress: (t) => ctx.output.progress(t) },
        {
          load: (d, env) => loadProject(d, { env, typescript: flags.typescript }),
          plan: (project, c) => createPlan(project, c, { prune: false }),
        },
      );
      ctx.output.endProgress();
      const shown = relative(ctx.cwd, dir) || '.';
      const report = renderImport(result, shown);
      for (const line of report.stderr) ctx.output.info(line);
      ctx.output.result(report.stdout.join('\n'));
      ctx.exit(report.exitCode);
    } finally {
      await client.close();
    }
  });
};
