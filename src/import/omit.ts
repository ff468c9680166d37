import { canonicalJson, isRecord, normalizeShape, type Shape } from '../kinds/shape.js';

/**
 * Leaves out of an imported body every field that the plan's normalization would fill in with
 * the same value anyway (server defaults, null standing for absent, ...), so a written definition
 * says only what differs from the defaults. The plan's shape is the one source of defaults: a
 * field is left out exactly when the normalized object stays the same without it.
 */
export function omitRedundant(
  body: Record<string, unknown>,
  shape: Shape,
  projectDefaults: Record<string, unknown> = {},
): Record<string, unknown> {
  // The loader merges the project's defaults under the definition, so that is what the plan sees.
  const merged = (candidate: Record<string, unknown>) => ({ ...projectDefaults, ...candidate });
  // A default computed from a sibling (retryStrategy.maxRetries from its type) couples the fields
  // of that object: only then must the whole object be normalized for each candidate. Otherwise
  // each field normalizes on its own, which keeps import linear in the size of the account.
  const coupled = Object.values(shape).some((rule) => rule.defaultFrom !== undefined);
  const sees = (candidate: Record<string, unknown>, key: string): string => {
    if (coupled) return canonicalJson(normalizeShape(merged(candidate), shape).value);
    const rule = shape[key];
    const value = merged(candidate)[key];
    if (!rule) return canonicalJson(value ?? null);
    return canonicalJson(normalizeShape(value === undefined ? {} : { [key]: value }, { [key]: rule }).value);
  };

  let current: Record<string, unknown> = { ...body };
  for (const key of Object.keys(body)) {
    const rule = shape[key];
    if (!rule && !(key in projectDefaults)) continue;
    // The target: what the plan sees of this field (or object) as the account has it.
    const target = sees(body, key);
    const without = { ...current };
    delete without[key];
    if (sees(without, key) === target) {
      current = without;
      continue;
    }
    // A nested object the project does not set: keep only its own non-default fields.
    const value = current[key];
    if (key in projectDefaults) continue;
    if (rule?.object && isRecord(value)) {
      const reduced = { ...current, [key]: omitRedundant(value, rule.object) };
      if (sees(reduced, key) === target) current = reduced;
    } else if (rule?.items && Array.isArray(value)) {
      const items = rule.items;
      const reduced = { ...current, [key]: value.map((item) => (isRecord(item) ? omitRedundant(item, items) : item)) };
      if (sees(reduced, key) === target) current = reduced;
    }
  }
  return current;
}
