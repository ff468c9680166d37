/**
 * Literal path segments a route parameter must not take. `/v1/status-pages/:statusPageId` also
 * matches `/v1/status-pages/services`, so `PUT /v1/status-pages/services` (no such route) would
 * reach the status-page PUT with the id "services" and answer its 400 or 404. A parameter never
 * stands for a literal segment another route has at the same place: such a request is an unknown
 * route or method, 404 before anything else (api-decisions §1.1).
 */

const isParam = (segment: string) => segment.startsWith(':');

/**
 * For each path, its parameters (by name) and the literals they may not take: the literal at the
 * parameter's position of every other path whose earlier segments are the same (literal for
 * literal, parameter for parameter). Paths are Hono paths (`/v1/x/:id`), methods do not matter.
 */
export function reservedSegments(paths: readonly string[]): Map<string, Map<string, Set<string>>> {
  const split = [...new Set(paths)].map((p) => ({ path: p, segments: p.split('/') }));
  const out = new Map<string, Map<string, Set<string>>>();
  for (const { path, segments } of split) {
    const reserved = new Map<string, Set<string>>();
    segments.forEach((segment, i) => {
      if (!isParam(segment)) return;
      const literals = new Set<string>();
      for (const other of split) {
        const lit = other.segments[i];
        if (other.path === path || lit === undefined || isParam(lit)) continue;
        const samePrefix = segments.slice(0, i).every((s, j) => (isParam(s) ? isParam(other.segments[j]) : s === other.segments[j]));
        if (samePrefix) literals.add(lit);
      }
      if (literals.size > 0) reserved.set(segment.slice(1), literals);
    });
    if (reserved.size > 0) out.set(path, reserved);
  }
  return out;
}

/** Whether the matched parameters take a literal reserved for another route. */
export function takesReserved(reserved: Map<string, Set<string>> | undefined, params: Record<string, string>): boolean {
  if (!reserved) return false;
  for (const [name, literals] of reserved) if (literals.has(params[name])) return true;
  return false;
}
