import type { PlannedChange } from '../plan/types.js';
import { getAt } from '../json/pointer.js';
import { Refused } from '../errors.js';
import { changeKey, type ChangeKey } from './graph.js';

/** Where secret values come back from: the environment, then the definitions of the planned directory. */
export interface SecretSources {
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Loads `plan.dir` again and builds each definition's desired body with its real secret values,
   * by "Kind/id" (the plan's secret pointers point into these bodies). Absent without a dir.
   */
  reload?: () => Promise<ReadonlyMap<ChangeKey, Record<string, unknown>>>;
}

/** Secret values by change key, then by the pointer of the change's SecretSource. */
export type SecretValues = Map<ChangeKey, Map<string, unknown>>;

/**
 * Gets back the secret values a saved plan left out: from the environment variable a value came
 * from, else from the re-loaded definition's body at the same pointer. Refuses, naming every
 * one, when any cannot be recovered; never prints a value.
 */
export async function recoverSecrets(changes: readonly PlannedChange[], sources: SecretSources): Promise<SecretValues> {
  let bodies: ReadonlyMap<ChangeKey, Record<string, unknown>> | undefined;
  const reloaded = async (key: ChangeKey) => {
    if (!sources.reload) return undefined;
    bodies ??= await sources.reload();
    return bodies.get(key);
  };

  const missing: string[] = [];
  const names = new Set<string>();
  const out: SecretValues = new Map();
  for (const change of changes) {
    if (!change.secrets?.length || (change.action !== 'create' && change.action !== 'update')) continue;
    const values = new Map<string, unknown>();
    for (const secret of change.secrets) {
      let value: unknown = secret.env !== undefined ? sources.env[secret.env] : undefined;
      if (value === undefined) value = getAt(await reloaded(changeKey(change)), secret.path);
      // A value still naming a variable was never set: it is no value, and must never be written.
      if (typeof value === 'string' && value.includes('${{')) value = undefined;
      if (value === undefined) {
        const wanted = secret.missing ?? (secret.env !== undefined ? [secret.env] : []);
        for (const n of wanted) names.add(n);
        missing.push(`${changeKey(change)} ${secret.path}${wanted.length > 0 ? ` (env ${wanted.join(', ')})` : ''}`);
      } else values.set(secret.path, value);
    }
    out.set(changeKey(change), values);
  }
  if (missing.length > 0) {
    const unset = names.size > 0 ? `environment variable${names.size > 1 ? 's' : ''} ${[...names].join(', ')} not set; ` : '';
    throw new Refused(`${unset}cannot recover masked value${missing.length > 1 ? 's' : ''} the plan left out: ${missing.join(', ')}; nothing was applied`, {
      hint: 'set the environment variables named, or apply from the machine where the planned directory exists',
    });
  }
  return out;
}

/** Secrets shorter than this are not masked in messages: masking "ab" would garble every word holding it. */
const MIN_MASKED_LENGTH = 4;

/**
 * Masks every secret value of the run in a message meant for people. An API may quote the
 * rejected body in its error (a 400 naming the bad value); the result must not carry it on.
 */
export function maskSecrets(text: string, secrets: ReadonlyMap<string, ReadonlyMap<string, unknown>> | undefined): string {
  if (!secrets) return text;
  let out = text;
  for (const values of secrets.values()) {
    for (const value of values.values()) {
      if (typeof value !== 'string' || value.length < MIN_MASKED_LENGTH) continue;
      // Also the JSON-escaped form, as a quoted body shows a value with quotes or newlines.
      for (const form of new Set([value, JSON.stringify(value).slice(1, -1)])) out = out.split(form).join('(sensitive)');
    }
  }
  return out;
}
