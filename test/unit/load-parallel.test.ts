import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/config/load.js';
import { parseWorkers, parseYamlFiles, PARALLEL_MIN_BYTES } from '../../src/config/yaml-parallel.js';
import { parseYamlData } from '../../src/config/yaml-source.js';
import { assemblePlan } from '../../src/plan/index.js';

// The parallel YAML parse (worker threads beside the main thread) must load the very project the
// main thread alone loads: same definitions, same diagnostics at the same positions, same plan.
// The worker module is the built one (dist/config/yaml-worker.js): `npm run build` first.

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const ENV = { SHOP_STRIPE_KEY: 'sk_test_parallel' };

/** Documents that parse, documents with problems found while parsing, and ones found later (positions by a second parse). */
function extraFile(i: number): string {
  const docs = [
    `kind: TcpCheck\nid: tcp-${i}\nname: "TCP ${i} \u00e9\u00e8 \u{1F600}"\nfrequency: 5\nrequest: { hostname: h-${i}.internal, port: ${1000 + i} }\ntags: [a, b, "c-${i}"]\n`,
    `# only a comment\n`,
    `kind: DnsCheck\nid: dns-${i}\nname: &n DNS ${i}\nrequest:\n  query: n-${i}.example\n  recordType: A\n  assertions:\n    - { source: RESPONSE_CODE, comparison: EQUALS, target: NOERROR }\ndegradedResponseTime: 0x1F4\nmaxResponseTime: 3e3\n`,
    `kind: Snippet\nid: snip-${i}\nname: Snippet ${i}\nscript: |\n  console.log('${i}');\n  // ${'x'.repeat(200)}\n`,
    // A field of the wrong type: its diagnostic needs the field's position.
    `kind: TcpCheck\nid: bad-${i}\nname: Bad ${i}\nfrequency: "often"\nrequest: { hostname: h, port: 99999 }\n`,
    // A duplicate key and an undefined alias: found by the bounds pass.
    `kind: EnvironmentVariable\nkey: DUP_${i}\nkey: DUP2_${i}\nvalue: v\n`,
    `kind: EnvironmentVariable\nkey: ALIAS_${i}\nvalue: *nowhere\n`,
    // A syntax error.
    `kind: EnvironmentVariable\nkey: SYN_${i}\nvalue: [unclosed\n`,
    `kind: EnvironmentVariable\nkey: NUM_${i}\nvalue: "${i}"\nlocked: true\n`,
  ];
  return docs.join('---\n');
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mac-parallel-'));
  cpSync(EXAMPLES, dir, { recursive: true });
  for (let i = 0; i < 40; i++) writeFileSync(join(dir, `extra-${String(i).padStart(2, '0')}.yaml`), extraFile(i));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The project as data: functions (positions on demand) dropped, plain values kept. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('the parallel YAML parse', () => {
  it('starts threads only for a large project, on cores that are idle', () => {
    expect(parseWorkers(PARALLEL_MIN_BYTES - 1, 8, 0)).toBe(0);
    expect(parseWorkers(PARALLEL_MIN_BYTES, 1, 0)).toBe(0);
    expect(parseWorkers(PARALLEL_MIN_BYTES, 2, 0.2)).toBe(1);
    expect(parseWorkers(PARALLEL_MIN_BYTES, 2, 1.5)).toBe(0);
    expect(parseWorkers(PARALLEL_MIN_BYTES, 4, 1.2)).toBe(2);
    expect(parseWorkers(PARALLEL_MIN_BYTES, 4, 30)).toBe(0);
    expect(parseWorkers(100 * PARALLEL_MIN_BYTES, 64, 0)).toBe(3);
  });

  it('hands each parsed file over in file order as soon as the files before it are parsed', async () => {
    const inputs = Array.from({ length: 40 }, (_, i) => (i % 9 === 4 ? undefined : { text: extraFile(i), file: `f${i}.yaml` }));
    const counts = { main: 0, threads: 0 };
    const seen: number[] = [];
    // The consumer dawdles, as loading a file's definitions does: the thread parses meanwhile.
    const returned = await parseYamlFiles(inputs, 1, undefined, counts, async (i, parsed) => {
      seen.push(i);
      const input = inputs[i];
      if (input === undefined) expect(parsed).toBeUndefined();
      else expect(parsed).toEqual(parseYamlData(input.text, input.file));
      await new Promise((r) => setTimeout(r, 5));
    });
    expect(seen).toEqual(inputs.map((_, i) => i));
    expect(counts.threads).toBeGreaterThan(0);
    expect(counts.main + counts.threads).toBe(inputs.filter(Boolean).length);
    // Handed over, not kept.
    expect(returned.every((r) => r === undefined)).toBe(true);
  });

  it('parses in the threads what the main thread would, in file order', async () => {
    const inputs = Array.from({ length: 30 }, (_, i) => (i === 7 ? undefined : { text: extraFile(i), file: `f${i}.yaml` }));
    const counts = { main: 0, threads: 0 };
    // The main thread dawdles between files, so the thread takes most of them.
    const results = await parseYamlFiles(inputs, 1, () => new Promise((r) => setTimeout(r, 20)), counts);
    expect(counts.threads).toBeGreaterThan(0);
    expect(counts.main + counts.threads).toBe(29);
    expect(results[7]).toBeUndefined();
    for (const [i, input] of inputs.entries()) if (input) expect(results[i]).toEqual(parseYamlData(input.text, input.file));
  });

  it('loads the same project, with the same diagnostics and the same plan, with threads or without', async () => {
    const alone = await loadProject(dir, { env: ENV, parseWorkers: 0 });
    const threaded = await loadProject(dir, { env: ENV, parseWorkers: 2 });
    expect(alone.diagnostics.length).toBeGreaterThan(40);
    expect(alone.definitions.length).toBeGreaterThan(100);
    expect(plain(threaded.diagnostics)).toEqual(plain(alone.diagnostics));
    expect(plain(threaded.definitions)).toEqual(plain(alone.definitions));
    // The plan of each (against an empty account: every definition's whole body is in it).
    const valid = (p: typeof alone) => ({ ...p, definitions: p.definitions.filter((d) => !alone.diagnostics.some((x) => x.severity === 'error' && x.file === d.file)) });
    const planOf = (p: typeof alone) => JSON.stringify(assemblePlan({ project: valid(p), live: new Map(), apiUrl: 'http://127.0.0.1:4010', prune: false, now: new Date(0) }));
    const plan = planOf(alone);
    expect(plan).toContain('"create"');
    expect(planOf(threaded)).toBe(plan);
    // The examples themselves are among them, unchanged.
    expect(readFileSync(join(dir, 'checks', 'http.yaml'), 'utf8')).toBe(readFileSync(join(EXAMPLES, 'checks', 'http.yaml'), 'utf8'));
  });
});
