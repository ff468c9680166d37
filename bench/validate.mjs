// Loading and validating 10,000 definitions against the floor of parsing their YAML alone.
// Run after a build: `node bench/validate.mjs [N]`. Prints a human line and one JSON line.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';

const DOCS_PER_FILE = 20;

function documentFor(i) {
  switch (i % 5) {
    case 0:
      return `kind: TcpCheck
id: tcp-${i}
name: TCP check ${i}
frequency: 5
locations: [eu-west-1, us-east-1]
tags: [bench, tcp]
request:
  hostname: host-${i}.bench.internal
  port: ${1000 + (i % 60000)}
  assertions:
    - { source: RESPONSE_TIME, comparison: LESS_THAN, target: "500" }
degradedResponseTime: 1000
maxResponseTime: 3000
alertChannels: [bench-email]
`;
    case 1:
      return `kind: DnsCheck
id: dns-${i}
name: DNS check ${i}
frequency: 0
frequencyOffset: 20
request:
  query: name-${i}.bench.example
  recordType: A
  assertions:
    - { source: RESPONSE_CODE, comparison: EQUALS, target: NOERROR }
setupSnippet: bench-setup
alertChannels: [bench-email]
`;
    case 2:
      return `kind: HeartbeatCheck
id: hb-${i}
name: Heartbeat ${i}
heartbeat: { period: 1, periodUnit: hours, grace: 10, graceUnit: minutes }
alertChannels: [bench-email]
`;
    case 3:
      return `kind: EnvironmentVariable
key: BENCH_VAR_${i}
value: value-${i}
secret: ${i % 2 === 0}
`;
    default:
      return `kind: Snippet
id: snippet-${i}
name: Snippet ${i}
script: |
  console.log('snippet ${i}');
`;
  }
}

/** Writes a project of `n` definitions (plus the two they reference) into a new temp dir. */
async function generateProject(n) {
  const dir = await mkdtemp(join(tmpdir(), 'mac-bench-'));
  await writeFile(join(dir, 'mac.config.yaml'), 'project: bench\ndefaults:\n  check:\n    tags: [bench]\n');
  await writeFile(
    join(dir, 'shared.yaml'),
    'kind: AlertChannel\nid: bench-email\ntype: EMAIL\nconfig: { address: bench@example.com }\n---\nkind: Snippet\nid: bench-setup\nname: Bench setup\nscript: "1"\n',
  );
  await mkdir(join(dir, 'defs'));
  const files = [];
  for (let start = 0; start < n - 2; start += DOCS_PER_FILE) {
    const docs = [];
    for (let i = start; i < Math.min(start + DOCS_PER_FILE, n - 2); i++) docs.push(documentFor(i));
    const file = join(dir, 'defs', `defs-${String(start / DOCS_PER_FILE).padStart(4, '0')}.yaml`);
    await writeFile(file, docs.join('---\n'));
    files.push(file);
  }
  return { dir, files: [join(dir, 'shared.yaml'), ...files] };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the bench; returns `{bench, n, floorMs, macMs, ratio}` (medians of `reps` runs). */
export async function runValidateBench({ n = 10_000, reps = 5 } = {}) {
  const { loadProject } = await import(pathToFileURL(join(import.meta.dirname, '..', 'dist', 'config', 'load.js')).href);
  const { dir, files } = await generateProject(n);
  try {
    // The floor: read every file and parse its YAML documents to plain data, nothing else.
    const floor = async () => {
      let docs = 0;
      for (const file of files) for (const doc of parseAllDocuments(await readFile(file, 'utf8'))) (doc.toJS(), docs++);
      return docs;
    };
    const mac = async () => {
      const project = await loadProject(dir, { env: {} });
      if (project.diagnostics.length > 0) throw new Error(`bench project is invalid: ${JSON.stringify(project.diagnostics[0])}`);
      return project.definitions.length;
    };
    const time = async (fn) => {
      const t0 = performance.now();
      const count = await fn();
      if (count !== n) throw new Error(`expected ${n} definitions, got ${count}`);
      return performance.now() - t0;
    };
    await time(floor);
    await time(mac);
    const floorTimes = [];
    const macTimes = [];
    for (let r = 0; r < reps; r++) {
      floorTimes.push(await time(floor));
      macTimes.push(await time(mac));
    }
    const floorMs = Math.round(median(floorTimes));
    const macMs = Math.round(median(macTimes));
    return { bench: 'validate', n, floorMs, macMs, ratio: Math.round((macMs / floorMs) * 100) / 100 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await runValidateBench({ n });
  console.log(`validate: ${result.n} definitions loaded and validated in ${result.macMs} ms; YAML parse alone ${result.floorMs} ms; ratio ${result.ratio}x (target <= 3x)`);
  console.log(JSON.stringify(result));
}
