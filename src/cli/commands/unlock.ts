import { resolve } from 'node:path';
import { ApiClient } from '../../api/index.js';
import { describeHolder, lockVariableKey, pidAlive, readLock, removeLock } from '../../apply/lock.js';
import { formatDiagnostic } from '../../config/format.js';
import { readProjectConfig } from '../../config/project-config.js';
import type { Diagnostic } from '../../config/types.js';
import { Refused, ValidationFailed } from '../../errors.js';
import { localHolder } from '../../apply/holder.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';

import type { CliContext } from '../context.js';

export interface UnlockFlags extends ConnectionFlags {
  force?: boolean;
}

/** `mac unlock [DIR]`: removes a stuck apply lock of the project, saying who held it. */
export async function run(ctx: CliContext, dir: string, flags: UnlockFlags): Promise<void> {
  const { output } = ctx;
  // Only the project name is needed: a project whose definitions are broken can still be unlocked.
  const diagnostics: Diagnostic[] = [];
  const { config } = await readProjectConfig(resolve(ctx.cwd, dir), ctx.env, diagnostics);
  if (!/^[a-z0-9-]+$/.test(config.project)) {
    for (const d of diagnostics) output.info(formatDiagnostic(d, output.cErr));
    throw new ValidationFailed('mac.config.yaml names no valid project; no request was made', { diagnostics });
  }
  const project = config.project;
  const client = new ApiClient(resolveConnection(flags, ctx.env));
  try {
    const found = await readLock(client, project);
    if (!found) {
      output.result(`no apply lock is held for project "${project}" (${lockVariableKey(project)})`);
      return;
    }
    const self = localHolder('mac unlock', ctx.env);
    const r = found.record;
    if (!flags.force && r && r.host === self.host && r.pid !== self.pid && pidAlive(r.pid) && Date.parse(r.expires) > Date.now()) {
      throw new Refused(`the apply lock of project "${project}" is held by ${describeHolder(found)}, a process still running on this machine`, {
        hint: `let it finish (or stop it: kill ${r.pid}); --force removes the lock anyway, and a second apply could then write alongside it`,
      });
    }
    const removed = await removeLock(client, project);
    output.result(
      removed
        ? `removed the apply lock of project "${project}", held by ${describeHolder(removed)}`
        : `no apply lock is held for project "${project}" (${lockVariableKey(project)})`,
    );
  } finally {
    await client.close();
  }
}
