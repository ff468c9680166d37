import type { Definition } from '../config/types.js';
import type { PlannedChange } from '../plan/types.js';
import { Refused } from '../errors.js';
import { changeKey } from './graph.js';
import { getAt, setAt } from './pointer.js';

/** Where secret values come back from: the environment, then the definitions of the planned directory. */
export interface SecretSources {
  env: Readonly<Record<string, string | undefined>>;
  /** Loads the definitions of `plan.dir` again; absent when the plan has no dir or it cannot be read. */
  reload?: () => Promise<readonly Definition[]>;
}

/**
 * Puts the secret values a saved plan left out back into the bodies of its changes: from the
 * environment variable a value came from, else from the re-loaded definition at the same pointer.
 * Refuses, naming every one, when any cannot be recovered; never prints a value.
 */
export async function recoverSecrets(changes: readonly PlannedChange[], sources: SecretSources): Promise<PlannedChange[]> {
  let definitions: Map<string, Definition> | undefined;
  const definitionOf = async (key: string) => {
    if (!sources.reload) return undefined;
    definitions ??= new Map((await sources.reload()).map((d) => [`${d.kind}/${d.id}`, d]));
    return definitions.get(key);
  };

  const missing: string[] = [];
  const out: PlannedChange[] = [];
  for (const change of changes) {
    if (!change.secrets?.length || !change.desired || change.action === 'delete' || change.action === 'noop') {
      out.push(change);
      continue;
    }
    let desired: Record<string, unknown> | undefined = change.desired;
    for (const secret of change.secrets) {
      let value: unknown = secret.env !== undefined ? sources.env[secret.env] : undefined;
      if (value === undefined) value = getAt((await definitionOf(changeKey(change)))?.spec, secret.path);
      const next: Record<string, unknown> | undefined = value === undefined ? undefined : setAt(desired, secret.path, value);
      if (next === undefined) {
        missing.push(`${changeKey(change)} ${secret.path}${secret.env ? ` (env ${secret.env})` : ''}`);
        continue;
      }
      desired = next;
    }
    out.push({ ...change, desired });
  }
  if (missing.length > 0) {
    throw new Refused(`cannot recover secret value${missing.length > 1 ? 's' : ''} the plan left out: ${missing.join(', ')}`, {
      hint: 'set the environment variables named, or apply from the machine where the planned directory exists',
    });
  }
  return out;
}
