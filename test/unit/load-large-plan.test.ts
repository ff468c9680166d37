import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/config/load.js';
import { assemblePlan } from '../../src/plan/index.js';

// The plan of a large generated project, pinned byte for byte: loading and planning may get
// faster (threads, files loaded while others parse, fewer copies), never different. The digests
// below are of the plan JSON and of the diagnostics as they were before the load was pipelined;
// a change that moves them changes what users get, and must say so.
// The worker module is the built one (dist/config/yaml-worker.js): `npm run build` first.

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const ENV = { SHOP_STRIPE_KEY: 'sk_test_large', GEN_HOST: 'gen.internal' };

/** Documents of every common shape, the kinds rotating, 50 to a file (as the bench writes them). */
function generated(i: number, snippets: number): string {
  const common = `id: gen-${i}\nname: Generated ${i} \u00e9\ntags: [gen, shard-${i % 16}]\n`;
  switch (i % 12) {
    case 0:
      return `kind: MultiStepCheck\n${common}frequency: 15\nruntimeId: "2025.04"\nscript: |\n  console.log('journey ${i}');\n`;
    case 1:
      return `kind: HeartbeatCheck\n${common}heartbeat: { period: 1, periodUnit: hours, grace: 10, graceUnit: minutes }\n`;
    case 2:
    case 3:
      return (
        `kind: DnsCheck\n${common}frequency: 5\nrequest:\n  query: name-${i}.gen.example\n  recordType: A\n` +
        `  assertions:\n    - { source: RESPONSE_CODE, comparison: EQUALS, target: NOERROR }\nsetupSnippet: gen-snippet-${i % snippets}\n`
      );
    case 4:
      return `kind: Snippet\nid: gen-snippet-${i % snippets}-x${i}\nname: Extra snippet ${i}\nscript: "console.log(${i})"\n`;
    case 5:
      return `kind: EnvironmentVariable\nkey: GEN_VAR_${i}\nvalue: value-${i}\nlocked: ${i % 2 === 0}\n`;
    case 6:
      return `kind: Dashboard\nid: gen-dash-${i}\nheader: Dashboard ${i}\ncustomUrl: gen-dash-${i}\ntags: [shard-${i % 16}]\nrefreshRate: 60\n`;
    default:
      return (
        `kind: TcpCheck\n${common}frequency: 10\nlocations: [eu-west-1, us-east-1]\n` +
        `request:\n  hostname: \${{ env.GEN_HOST }}\n  port: ${1024 + (i % 60000)}\n` +
        `  assertions:\n    - { source: RESPONSE_TIME, comparison: LESS_THAN, target: "500" }\n` +
        `degradedResponseTime: 0x3E8\nmaxResponseTime: 3e3\n`
      );
  }
}

/** Documents with problems, found while parsing and later (positions by a second parse). */
function defective(i: number): string {
  return [
    `kind: TcpCheck\nid: bad-${i}\nname: Bad ${i}\nfrequency: "often"\nrequest: { hostname: h, port: 99999 }\n`,
    `kind: EnvironmentVariable\nkey: DUP_${i}\nkey: DUP2_${i}\nvalue: v\n`,
    `kind: EnvironmentVariable\nkey: ALIAS_${i}\nvalue: *nowhere\n`,
    `kind: EnvironmentVariable\nkey: SYN_${i}\nvalue: [unclosed\n`,
    `kind: TcpCheck\nid: unknown-${i}\nname: U ${i}\nfrequncy: 5\nrequest: { hostname: h, port: 1 }\n`,
    `kind: EnvironmentVariable\nkey: UNSET_${i}\nvalue: \${{ env.GEN_NOT_SET }}\n`,
  ].join('---\n');
}

let valid: string;
let invalid: string;

function writeGenerated(dir: string, docs: number): void {
  mkdirSync(join(dir, 'generated'), { recursive: true });
  const snippets = 40;
  const snippetDocs = Array.from({ length: snippets }, (_, i) => `kind: Snippet\nid: gen-snippet-${i}\nname: Snippet ${i}\nscript: |\n  console.log('setup ${i}');\n`);
  writeFileSync(join(dir, 'generated', 'snippets.yaml'), snippetDocs.join('---\n'));
  for (let start = 0; start < docs; start += 50) {
    const text = Array.from({ length: Math.min(50, docs - start) }, (_, k) => generated(start + k, snippets)).join('---\n');
    writeFileSync(join(dir, 'generated', `gen-${String(start / 50).padStart(3, '0')}.yaml`), text);
  }
}

beforeAll(() => {
  valid = mkdtempSync(join(tmpdir(), 'mac-large-'));
  cpSync(EXAMPLES, valid, { recursive: true });
  const config = join(valid, 'mac.config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('env: [SHOP_STRIPE_KEY]', 'env: [SHOP_STRIPE_KEY, GEN_HOST, GEN_NOT_SET]'));
  writeGenerated(valid, 3000);
  invalid = mkdtempSync(join(tmpdir(), 'mac-large-invalid-'));
  cpSync(valid, invalid, { recursive: true });
  for (let i = 0; i < 30; i++) writeFileSync(join(invalid, 'generated', `bad-${String(i).padStart(2, '0')}.yaml`), defective(i));
});
afterAll(() => {
  for (const dir of [valid, invalid]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** Positions on demand (functions) dropped, plain values kept. */
const plain = (value: unknown) => JSON.stringify(value).replaceAll(invalid, '.');

describe('the plan of a large generated project', () => {
  it.each([0, 1])('is byte for byte the pinned plan with %i parse threads', async (parseWorkers) => {
    const project = await loadProject(valid, { env: ENV, parseWorkers });
    expect(project.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(project.definitions.length).toBeGreaterThan(3000);
    // The project's directory (a temp dir) is the one field that differs from run to run.
    const plan = JSON.stringify({ ...assemblePlan({ project, live: new Map(), apiUrl: 'http://127.0.0.1:4010', prune: false, now: new Date(0) }), dir: '.' }, null, 2);
    expect(plan.length).toBeGreaterThan(1_000_000);
    expect(sha(plan)).toBe(PLAN_DIGEST);
  }, 300_000);

  it.each([0, 1])('has byte for byte the pinned diagnostics with %i parse threads, when some files are defective', async (parseWorkers) => {
    const project = await loadProject(invalid, { env: ENV, parseWorkers });
    expect(project.diagnostics.length).toBeGreaterThan(150);
    expect(sha(plain(project.diagnostics))).toBe(DIAGNOSTICS_DIGEST);
    expect(sha(plain(project.definitions))).toBe(DEFINITIONS_DIGEST);
  }, 300_000);
});

const PLAN_DIGEST = 'c0cc052478ceb95198f392994c60fe9052e524c23c16726c194c36ae9d45b29b';
const DIAGNOSTICS_DIGEST = 'b762e820e954bd20601a3de392b0c2e70b65f2f36ffeb0eeef893e0bb4ea2ef2';
const DEFINITIONS_DIGEST = '497a153b382f79dabb8d5ced32ba50a00b26d9ca78df2d63202b82929282674c';
