/**
 * Which checks POST /v1/check-sessions/trigger runs (api-decisions §4): `checkId` lists ids;
 * `matchTags` is an OR of AND groups where `!tag` negates. No target = every check.
 */

/** The body's `target`. */
export interface TriggerTarget {
  checkId?: string[];
  matchTags?: string[][];
}

/** Whether tags satisfy one AND group. */
function matchesGroup(tags: ReadonlySet<string>, group: string[]): boolean {
  return group.every((t) => (t.startsWith('!') ? !tags.has(t.slice(1)) : tags.has(t)));
}

/** Whether a check is targeted; with both lists given, either may select it. */
export function isTargeted(check: { id: string; tags?: string[] }, target: TriggerTarget | undefined): boolean {
  if (!target || (target.checkId === undefined && target.matchTags === undefined)) return true;
  if (target.checkId?.includes(check.id)) return true;
  const tags = new Set(check.tags ?? []);
  return (target.matchTags ?? []).some((group) => matchesGroup(tags, group));
}
