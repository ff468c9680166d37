/** Random and mutated JSON for the fuzz tests of the service (seeded, so failures reproduce). */

/** A small seeded PRNG (mulberry32) so that a failure is reproducible from the printed seed. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -0, 65536, '', 'x', ' ', '\u0000', 'é', '__proto__', 'constructor', '9'.repeat(400), '2025-03-12T12:00:00Z', 'a@example.com', [], {}];
const KEYS = [
  'name', 'request', 'port', 'hostname', 'type', 'config', 'value', 'key', 'id', 'frequency', 'checkId', 'groupId', 'activated', 'subscriptions',
  'url', 'cards', 'services', 'severity', 'incidentUpdates', 'description', 'status', 'notifySubscribers', 'archiveForEver', 'archivedUntilNextEvent',
  'themeColors', 'autoVerify', '__proto__', 'constructor',
];

/** Any JSON value, nested up to a few levels, with keys the service's bodies use. */
export function randomValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (depth > 3 || r < 0.5) return ATOMS[Math.floor(rand() * ATOMS.length)];
  if (r < 0.75) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 5); i > 0; i--) o[KEYS[Math.floor(rand() * KEYS.length)]] = randomValue(rand, depth + 1);
  return o;
}

/** Replaces, deletes or retypes one field somewhere in a valid body. */
export function mutate(value: unknown, rand: () => number): unknown {
  if (value === null || typeof value !== 'object') return randomValue(rand);
  const copy: any = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  if (keys.length === 0) return randomValue(rand);
  const k = keys[Math.floor(rand() * keys.length)];
  const r = rand();
  if (r < 0.3) delete copy[k];
  else if (r < 0.6) copy[k] = randomValue(rand);
  else copy[k] = mutate(copy[k], rand);
  return copy;
}

/** One fuzz input: a random value (40 %), a mutated valid body (50 %) or a cut JSON text (10 %). */
export function fuzzInput(valid: unknown, rand: () => number): { body?: unknown; raw?: string } {
  const r = rand();
  if (r < 0.1) return { raw: JSON.stringify(valid ?? {}).slice(0, Math.floor(rand() * 40)) };
  return { body: r < 0.5 ? randomValue(rand) : mutate(valid, rand) };
}
