// The per-resource refresh baseline: what the popular Terraform provider does on every plan,
// one GET per resource in its state, ten at a time (its default parallelism).
import { Pool } from 'undici';
import { API_KEY } from './service.mjs';

/** Concurrency of the simulated provider (`terraform plan -parallelism=10`, the default). */
export const BASELINE_CONCURRENCY = 10;

/** Item paths of each list: how the baseline names one resource it already knows the id of. */
const LISTS = [
  { list: '/v1/checks', item: (o) => `/v1/checks/${o.id}` },
  { list: '/v1/snippets', item: (o) => `/v1/snippets/${o.id}` },
  { list: '/v1/dashboards', item: (o) => `/v1/dashboards/${o.dashboardId}` },
  { list: '/v1/variables', item: (o) => `/v1/variables/${encodeURIComponent(o.key)}` },
];

/** The variables mac keeps its ownership records in: mac's own, not resources a provider would hold. */
const OWNED_PREFIX = 'MAC_OWNED_';

const headers = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };

/**
 * The item paths of every resource in the account: the ids a provider keeps in its state (mac's
 * ownership records left out). Read once, untimed and uncounted, from the lists.
 */
export async function resourcePaths(url) {
  const pool = new Pool(url, { connections: 4 });
  try {
    const paths = [];
    for (const { list, item } of LISTS) {
      for (let page = 1; ; page++) {
        const res = await pool.request({ method: 'GET', path: `${list}?limit=100&page=${page}`, headers });
        const body = await res.body.json();
        if (res.statusCode !== 200) throw new Error(`GET ${list}: ${res.statusCode} ${JSON.stringify(body)}`);
        paths.push(...body.filter((o) => !(list === '/v1/variables' && String(o.key).startsWith(OWNED_PREFIX))).map(item));
        if (body.length < 100) break;
      }
    }
    return paths;
  } finally {
    await pool.close();
  }
}

/**
 * Refreshes every path with one GET, `concurrency` at a time. Resolves to `{requests, wallMs}`;
 * throws if any answer is not 200 (a baseline that skips work would flatter mac). The network
 * floor of a plan is the same function over the list pages the plan read, at its concurrency.
 */
export async function refreshEach(url, paths, concurrency = BASELINE_CONCURRENCY) {
  const pool = new Pool(url, { connections: concurrency });
  let next = 0;
  let requests = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++];
      const res = await pool.request({ method: 'GET', path, headers });
      // Bytes only, not decoded: a real provider also decodes each body, so this errs in its favour.
      await res.body.arrayBuffer();
      requests++;
      if (res.statusCode !== 200) throw new Error(`baseline GET ${path}: ${res.statusCode}`);
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { requests, wallMs: performance.now() - started };
  } finally {
    await pool.close();
  }
}
