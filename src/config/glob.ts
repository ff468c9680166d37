/**
 * A small glob matcher for `include` (Node 20 has no fs.glob): `**` (any number of folders),
 * `*` and `?` (within one path segment), `{a,b}` alternatives and `[...]` classes.
 * Paths are relative, with `/` separators.
 */

/** Compiles a glob to a RegExp that matches whole relative paths. */
export function globToRegExp(glob: string): RegExp {
  const g = glob.replace(/^\.\//, '');
  let re = '';
  let braceDepth = 0;
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*') {
      if (g[i + 1] === '*') {
        const atSegmentStart = i === 0 || g[i - 1] === '/';
        if (atSegmentStart && g[i + 2] === '/') {
          re += '(?:[^/]+/)*';
          i += 2;
        } else {
          re += '.*';
          i += 1;
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      braceDepth++;
      re += '(?:';
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      re += ')';
    } else if (c === ',' && braceDepth > 0) {
      re += '|';
    } else if (c === '[') {
      const end = g.indexOf(']', i + 2);
      if (end === -1) {
        re += '\\[';
      } else {
        let body = g.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else {
      re += c.replace(/[.+^$()|\\\]]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/** A predicate that is true when a relative path matches any of the globs. */
export function globMatcher(globs: readonly string[]): (relativePath: string) => boolean {
  const res = globs.map(globToRegExp);
  return (p) => res.some((r) => r.test(p));
}
