// The YAML parse floor of a project, as a process of its own (timed like `mac plan`, start-up
// included): read every .yaml file under DIR and parse its documents to plain data, nothing else
// (no positions, no validation, one thread). Prints the number of documents and the process's
// CPU time in milliseconds (user + system), space separated.
// Usage: node bench/lib/yaml-floor.mjs DIR
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

async function yamlFiles(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await yamlFiles(path)));
    else if (/\.ya?ml$/.test(entry.name) && entry.name !== 'mac.config.yaml') out.push(path);
  }
  return out.sort();
}

let docs = 0;
for (const file of await yamlFiles(process.argv[2])) for (const doc of parseAllDocuments(await readFile(file, 'utf8'))) (doc.toJS(), docs++);
const cpu = process.cpuUsage();
console.log(`${docs} ${Math.round((cpu.user + cpu.system) / 1000)}`);
