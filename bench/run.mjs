// `npm run bench [-- --quick] [-- --json FILE] [-- --only plan,apply,validate,serve,soak,multistep,sandbox,browser,http,icmp,analytics,senders,alerts,cli-start,tree-memory]`
// Runs every case (each starts its own `mac serve`, writes its definitions into temp dirs and
// removes them), then prints a table for people and one JSON line per figure for machines.
// Exit code: 0 when every case ran (misses are reported in the table), 1 when a case failed.
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { CASES } from './cases.mjs';
import { notMeasured, table } from './lib/figures.mjs';
import { cleanup } from './lib/resources.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(`usage: npm run bench [-- --quick] [-- --json FILE] [-- --only ${CASES.map((c) => c.name).join(',')}]
  --quick   a tenth of the plan's resources, fewer rate-limited changes, shorter runs (under 2 minutes)
  --json    also write the figures to FILE
  --only    run only these cases`);
  process.exit(0);
}

const only = values.only?.split(',').map((s) => s.trim());
const unknown = only?.filter((name) => !CASES.some((c) => c.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown case(s): ${unknown.join(', ')}; cases are ${CASES.map((c) => c.name).join(', ')}`);
  process.exit(2);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping services and removing temp dirs ...`);
    cleanup().finally(() => process.exit(130));
  });
}

const log = (line) => process.stderr.write(`${line}\n`);
const quick = values.quick;
const started = new Date();
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
log(`mac bench (${quick ? 'quick: plan of 1,220 resources, 1,000 creates, 150 rate-limited changes, 1,000 definitions validated, 2 s of load' : 'full: plan of 12,200 resources, 1,000 creates, 500 rate-limited changes, 10,000 definitions validated, 5 s of load'})`);
log(`node ${process.version}, ${cpus().length} CPUs, load average ${load()}`);

const figures = [];
let failed = false;
for (const c of CASES.filter((c) => !only || only.includes(c.name))) {
  const t0 = performance.now();
  let mod;
  try {
    mod = await import(c.module);
  } catch (err) {
    const reason = err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes(c.module.slice(2)) ? `bench/${c.module.slice(2)} is missing` : `cannot load bench/${c.module.slice(2)}: ${err.message}`;
    log(`${c.name}: not run, ${reason}`);
    figures.push(...c.figures.map((f) => notMeasured({ ...f, reason })));
    continue;
  }
  try {
    figures.push(...(await c.run(mod, { quick, log })));
    log(`${c.name}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    failed = true;
    log(`${c.name}: FAILED\n${err.stack ?? err}`);
    figures.push(...c.figures.map((f) => notMeasured({ ...f, reason: `failed: ${String(err.message).split('\n')[0]}` })));
  } finally {
    await cleanup();
  }
}

const elapsed = (Date.now() - started.getTime()) / 1000;
console.log(`\nmac bench, ${quick ? 'quick' : 'full'} run, ${started.toISOString()}, ${elapsed.toFixed(0)} s, load average at the end ${load()}\n`);
console.log(table(figures));
console.log('');
for (const f of figures) console.log(JSON.stringify(f));

if (values.json) {
  const doc = { quick, startedAt: started.toISOString(), seconds: Math.round(elapsed), node: process.version, cpus: cpus().length, figures };
  await writeFile(values.json, `${JSON.stringify(doc, null, 2)}\n`);
  log(`figures written to ${values.json}`);
}
process.exitCode = failed ? 1 : 0;
