/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for the tests of
 * `/metrics`: every line is a `# HELP`, a `# TYPE` or a sample, else it throws naming the line.
 * Samples belong to the family their name (less a histogram's or summary's suffix) declares.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function parseValue(text: string, line: number): number {
  // As Prometheus reads them (Go's ParseFloat): NaN and Inf in any case, so prom-client's "Nan"
  // (an event-loop percentile before any sample, on a loaded machine) is a value.
  const special = text.toLowerCase();
  if (special === '+inf' || special === 'inf') return Infinity;
  if (special === '-inf') return -Infinity;
  if (special === 'nan') return NaN;
  const v = Number(text);
  if (text === '' || Number.isNaN(v)) throw new Error(`line ${line}: bad value "${text}"`);
  return v;
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(text.slice(i));
    if (!m) throw new Error(`line ${line}: bad label at "${text.slice(i)}"`);
    i += m[0].length;
    let value = '';
    for (;;) {
      if (i >= text.length) throw new Error(`line ${line}: unterminated label value`);
      const c = text[i++];
      if (c === '"') break;
      if (c === '\\') {
        const e = text[i++];
        if (e === 'n') value += '\n';
        else if (e === '\\' || e === '"') value += e;
        else throw new Error(`line ${line}: bad escape \\${e}`);
      } else value += c;
    }
    if (m[1] in labels) throw new Error(`line ${line}: label ${m[1]} twice`);
    labels[m[1]] = value;
    if (text[i] === ',') i++;
    else if (i < text.length) throw new Error(`line ${line}: expected "," after a label`);
  }
  return labels;
}

export function parsePrometheusTextFormat(text: string): Family[] {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: 'untyped', help: '', samples: [] }));
    return f;
  };
  const lines = text.split('\n');
  if (lines[lines.length - 1] !== '') throw new Error('the text does not end with a line feed');
  lines.forEach((raw, idx) => {
    const line = idx + 1;
    if (raw === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return; // a comment
      if (!NAME.test(m[2])) throw new Error(`line ${line}: bad metric name ${m[2]}`);
      const f = family(m[2]);
      if (m[1] === 'HELP') f.help = m[3];
      else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(m[3])) throw new Error(`line ${line}: bad type ${m[3]}`);
        if (f.samples.length > 0) throw new Error(`line ${line}: TYPE after samples of ${m[2]}`);
        f.type = m[3] as Family['type'];
      }
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(raw);
    if (!m) throw new Error(`line ${line}: not a sample: ${raw}`);
    const name = m[1];
    const base = [name, name.replace(/_(bucket|sum|count)$/, '')].find((n) => families.has(n) && (n === name || ['histogram', 'summary'].includes(families.get(n)!.type)));
    const f = family(base ?? name);
    const labels = parseLabels(m[2] ?? '', line);
    if (name.endsWith('_bucket') && f.type === 'histogram' && !('le' in labels)) throw new Error(`line ${line}: a bucket without le`);
    f.samples.push({ name, labels, value: parseValue(m[3], line) });
  });
  return [...families.values()];
}
