import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pLimit from 'p-limit';
import { ApiClient } from '../../src/api/client.js';
import { loadProject } from '../../src/config/load.js';
import { createPlan, kindSpec, requestBody } from '../../src/plan/index.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { writeProject } from '../e2e/plan-helpers.js';

const SNIPPETS = 150;
const CHECKS = 120;
const VARIABLES = 30;

let served: Served;
let proxy: Server;
let proxyUrl: string;
const seen: Array<{ method: string; url: string }> = [];

/** A proxy in front of mac serve that records every request it forwards. */
async function countingProxy(target: string): Promise<void> {
  const to = new URL(target);
  proxy = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url! });
    const up = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode!, upRes.headers);
      upRes.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
  await countingProxy(served.url);
});

afterAll(async () => {
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  await served?.stop();
});

describe('requests of a no-change plan', () => {
  it(`makes at most sum(ceil(n/100)) list requests plus a constant (${SNIPPETS} snippets, ${CHECKS} checks, ${VARIABLES} variables)`, async () => {
    const files: Record<string, string> = { 'mac.config.yaml': 'project: many\n' };
    const docs = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join('---\n');
    files['snippets.yaml'] = docs(SNIPPETS, (i) => `kind: Snippet\nid: s${i}\nname: snippet ${i}\nscript: "run(${i})"\n`);
    files['checks.yaml'] = docs(CHECKS, (i) => `kind: TcpCheck\nid: c${i}\nname: check ${i}\nrequest: { hostname: host${i}.example, port: ${1000 + i} }\n`);
    files['variables.yaml'] = docs(VARIABLES, (i) => `kind: EnvironmentVariable\nkey: VAR_${i}\nvalue: v${i}\n`);
    const dir = await writeProject(files);
    const client = new ApiClient({ apiUrl: served.url, apiKey: served.apiKey });
    try {
      await createMany(dir, client);
    } finally {
      await client.close();
    }
    seen.length = 0;
    const r = await runMacIn(['plan', dir, '--detailed-exitcode'], { env: { MAC_API_URL: proxyUrl, MAC_API_KEY: served.apiKey } });
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Plan: 0 to create, 0 to update, 0 to delete. ${SNIPPETS + CHECKS + VARIABLES} unchanged.`);
    // Plus one: check groups are always read (an owned group no longer defined is reported as orphaned).
    // The variables are read once, for the ownership records and as the project's variables.
    const bound = Math.ceil(SNIPPETS / 100) + Math.ceil(CHECKS / 100) + Math.ceil(VARIABLES / 100) + 1;
    expect(seen.every((s) => s.method === 'GET')).toBe(true);
    expect(seen.length).toBeLessThanOrEqual(bound);
    expect(seen.map((s) => s.url.split('?')[0]).sort()).toEqual(['/v1/check-groups', '/v1/checks', '/v1/checks', '/v1/snippets', '/v1/snippets', '/v1/variables']);
  });
});

/** Creates the project's resources with the engine's bodies, 8 at a time (none of them reference another). */
async function createMany(dir: string, client: ApiClient): Promise<void> {
  const limit = pLimit(8);
  const project = await loadProject(dir, { env: {} });
  const plan = await createPlan(project, client, { prune: false });
  await Promise.all(
    plan.changes.map((c) =>
      limit(() => client.post(kindSpec(c.kind).api.create.path, requestBody(c, new Map()), kindSpec(c.kind).api.create.query)),
    ),
  );
}
