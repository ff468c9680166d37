// One measured figure: its value, its target, whether it meets it; printed as a table row for
// people and as one JSON line for machines.

/**
 * Builds a figure. `target` is `{op: '>=' | '<=', value}`; `details` are extra numbers that
 * explain the value (they go into the JSON line and the detail column).
 */
export function figure({ bench, figure: number, title, value, unit = 'x', target, details = {}, note = '' }) {
  const pass = target.op === '>=' ? value >= target.value : value <= target.value;
  return { bench, figure: number, title, value: round(value), unit, target: `${target.op} ${target.value}`, pass, note, ...details };
}

/** A figure that could not be measured (its module is missing or it failed). */
export function notMeasured({ bench, figure: number, title, target, reason }) {
  return { bench, figure: number, title, value: null, unit: '', target: `${target.op} ${target.value}`, pass: false, note: reason };
}

/** Rounds to about three significant digits (whole numbers from 100 up). */
export function round(x) {
  if (!Number.isFinite(x)) return x;
  const a = Math.abs(x);
  return a >= 100 ? Math.round(x) : Number(x.toFixed(a >= 10 ? 1 : a >= 1 ? 2 : 3));
}

/** Renders figures as an aligned text table. */
export function table(figures) {
  const rows = [['#', 'figure', 'measured', 'target', 'result']];
  for (const f of figures) {
    const value = f.value === null ? '-' : `${f.value}${f.unit === 'x' ? 'x' : ` ${f.unit}`}`;
    const target = f.unit === 'x' || f.value === null ? `${f.target}${f.unit === 'x' ? 'x' : ''}` : `${f.target} ${f.unit}`;
    rows.push([String(f.figure), f.title, value, target, f.value === null ? 'NOT RUN' : f.pass ? 'pass' : 'MISS']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const out = [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
  const notes = figures.filter((f) => f.note).map((f) => `  [${f.figure}] ${f.title}: ${f.note}`);
  return [...out, ...(notes.length ? ['', ...notes] : [])].join('\n');
}

/** The median of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Runs both sides of round `round` of a side-by-side measure, alternating which goes first, so
 * that a slow spell of a shared machine hits both; resolves to their results as [a, b].
 */
export async function alternated(round, a, b) {
  if (round % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const second = await b();
  return [await a(), second];
}
