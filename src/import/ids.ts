import { forbiddenEnvName } from '../config/interpolate.js';
/**
 * Logical ids for imported resources: derived from names, valid for the definition format
 * (`[a-z0-9][a-z0-9._-]*`), unique per namespace, and stable: the same account, read in the
 * same (creation) order, always gives the same ids.
 */

/** Longest id import derives; long names make unreadable ids and file names. */
const MAX_ID_LENGTH = 60;

/** Lower-case slug of a name: diacritics dropped, every run of other characters one `-`. */
export function slugify(name: string, maxLength = MAX_ID_LENGTH): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const slug = ascii
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, maxLength).replace(/-+$/, '');
}

/**
 * Hands out ids unique within one namespace. Ids already defined in the project are reserved
 * first, so a re-import never reuses one; a collision gets `-2`, `-3`, ... in the order asked,
 * which is the account's creation order and therefore stable between runs.
 */
export class IdAllocator {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const id of reserved) this.taken.add(id);
  }

  /** Whether an id is already in use. */
  has(id: string): boolean {
    return this.taken.has(id);
  }

  /** Reserves and returns the id for `name`; `fallback` is used when the name has no usable character. */
  allocate(name: string, fallback: string): string {
    const base = slugify(name) || fallback;
    let id = base;
    for (let n = 2; this.taken.has(id); n++) id = `${base}-${n}`;
    this.taken.add(id);
    return id;
  }
}

/** Environment variable names: upper snake case, unique, never one mac itself reads. */
export class EnvNameAllocator {
  private readonly taken = new Set<string>(['MAC_API_URL', 'MAC_API_KEY', 'MAC_ACCOUNT_ID', 'MAC_RATE_LIMIT', 'PATH', 'HOME']);

  /** Reserves and returns an environment name built from `parts` (joined by `_`). */
  allocate(...parts: string[]): string {
    const joined = parts
      .map((p) => p.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/([a-z0-9])([A-Z])/g, '$1_$2'))
      .join('_')
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
    // An environment name cannot start with a digit.
    let base = !joined ? 'SECRET' : /^[0-9]/.test(joined) ? `_${joined}` : joined;
    // A name definitions may never read (MAC_*, INPUT_*, ...; a resource id like "input-api") gets a prefix.
    if (forbiddenEnvName(base) !== undefined) base = `ENV_${base}`;
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    return name;
  }
}
