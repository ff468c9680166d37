// Generates the bench's monitoring project: checks of every kind, snippets, dashboards and
// variables, written as YAML files of a few dozen documents each (as a real repository would be).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const DOCS_PER_FILE = 50;

/** One check definition; the kind rotates so that every check kind is planned. */
function check(i, snippets) {
  const common = `id: check-${i}\nname: Bench check ${i}\ntags: [bench, shard-${i % 16}]\n`;
  switch (i % 10) {
    case 0:
      return `kind: MultiStepCheck\n${common}frequency: 15\nruntimeId: "2025.04"\nscript: |\n  console.log('journey ${i}');\n`;
    case 1:
    case 2:
      return `kind: HeartbeatCheck\n${common}heartbeat: { period: 1, periodUnit: hours, grace: 10, graceUnit: minutes }\n`;
    case 3:
    case 4:
    case 5:
      return (
        `kind: DnsCheck\n${common}frequency: 5\nrequest:\n  query: name-${i}.bench.example\n  recordType: A\n` +
        `  assertions:\n    - { source: RESPONSE_CODE, comparison: EQUALS, target: NOERROR }\n` +
        (snippets > 0 ? `setupSnippet: snippet-${i % snippets}\n` : '')
      );
    default:
      return (
        `kind: TcpCheck\n${common}frequency: 10\nlocations: [eu-west-1, us-east-1]\n` +
        `request:\n  hostname: host-${i}.bench.internal\n  port: ${1024 + (i % 60000)}\n` +
        `  assertions:\n    - { source: RESPONSE_TIME, comparison: LESS_THAN, target: "500" }\n` +
        `degradedResponseTime: 1000\nmaxResponseTime: 3000\n`
      );
  }
}

const snippet = (i) => `kind: Snippet\nid: snippet-${i}\nname: Bench snippet ${i}\nscript: |\n  console.log('setup ${i}');\n`;

const dashboard = (i) =>
  `kind: Dashboard\nid: dash-${i}\nheader: Bench dashboard ${i}\ncustomUrl: bench-dash-${i}\ntags: [shard-${i % 16}]\nrefreshRate: 60\n`;

const variable = (i) => `kind: EnvironmentVariable\nkey: BENCH_VAR_${i}\nvalue: value-${i}\n`;

/** Writes `docs` into `dir/<prefix>-NNNN.yaml` files of DOCS_PER_FILE documents. */
async function writeChunked(dir, prefix, docs) {
  await mkdir(dir, { recursive: true });
  for (let start = 0; start < docs.length; start += DOCS_PER_FILE) {
    const name = `${prefix}-${String(start / DOCS_PER_FILE).padStart(4, '0')}.yaml`;
    await writeFile(join(dir, name), docs.slice(start, start + DOCS_PER_FILE).join('---\n'));
  }
}

/**
 * Writes a project of `checks` checks, `snippets` snippets, `dashboards` dashboards and
 * `variables` variables into `dir` (which must exist). Returns the number of definitions.
 */
export async function writeProject(dir, { checks, snippets, dashboards, variables }) {
  await writeFile(join(dir, 'mac.config.yaml'), 'project: bench\ndefaults:\n  check:\n    locations: [eu-west-1]\n');
  const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
  await writeChunked(join(dir, 'checks'), 'checks', range(checks, (i) => check(i, snippets)));
  await writeChunked(join(dir, 'snippets'), 'snippets', range(snippets, snippet));
  await writeChunked(join(dir, 'dashboards'), 'dashboards', range(dashboards, dashboard));
  await writeChunked(join(dir, 'variables'), 'variables', range(variables, variable));
  return checks + snippets + dashboards + variables;
}
