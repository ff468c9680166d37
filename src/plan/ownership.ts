/**
 * Ownership of checks: every check mac creates carries the tag `mac:<project>/<id>`, which is
 * how a check is found again after a rename, and how --prune knows what belongs to a project.
 */

const PREFIX = 'mac:';

/** The ownership tag of a check definition. */
export function ownershipTag(project: string, id: string): string {
  return `${PREFIX}${project}/${id}`;
}

/** The logical id a live check's tags give it within `project`, if any. */
export function ownedId(project: string, tags: unknown): string | undefined {
  if (!Array.isArray(tags)) return undefined;
  const prefix = `${PREFIX}${project}/`;
  const tag = tags.find((t): t is string => typeof t === 'string' && t.startsWith(prefix));
  return tag?.slice(prefix.length);
}

/** The project of the first ownership tag among `tags`, if any (for messages about look-alikes). */
export function ownerProject(tags: unknown): string | undefined {
  if (!Array.isArray(tags)) return undefined;
  const tag = tags.find((t): t is string => typeof t === 'string' && t.startsWith(PREFIX) && t.includes('/'));
  return tag?.slice(PREFIX.length, tag.indexOf('/'));
}
