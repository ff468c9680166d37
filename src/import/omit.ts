import { canonicalJson, isRecord, normalizeShape, type Shape } from '../plan/kinds/shape.js';

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
  const seen = (candidate: Record<string, unknown>) => canonicalJson(normalizeShape({ ...projectDefaults, ...candidate }, shape).value);
  const target = canonicalJson(normalizeShape(body, shape).value);
  let current: Record<string, unknown> = { ...body };
  for (const key of Object.keys(body)) {
    const rule = shape[key];
    if (!rule && !(key in projectDefaults)) continue;
    const without = { ...current };
    delete without[key];
    if (seen(without) === target) {
      current = without;
      continue;
    }
    // A nested object the project does not set: keep only its own non-default fields.
    const value = current[key];
    if (!(key in projectDefaults) && rule?.object && isRecord(value)) {
      const reduced = { ...current, [key]: omitRedundant(value, rule.object) };
      if (seen(reduced) === target) current = reduced;
    } else if (!(key in projectDefaults) && rule?.items && Array.isArray(value)) {
      const items = rule.items;
      const reduced = { ...current, [key]: value.map((item) => (isRecord(item) ? omitRedundant(item, items) : item)) };
      if (seen(reduced) === target) current = reduced;
    }
  }
  return current;
}
