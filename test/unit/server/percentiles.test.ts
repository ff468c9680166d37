import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from '../../../src/server/rundata/stats.js';
import { harness, snapshot, tcpAttempt, type Harness } from '../../e2e/rundata-harness.js';
import { pgCreateDatabase, pgDatabase } from '../../helpers/pg-url.js';
import { rng } from '../../helpers/rng.js';

// Percentiles are exact on every store: the analytics take the nearest rank of the ordered values
// read by an indexed query. PostgreSQL's percentile_disc is the same definition, computed by the
// database; percentile_cont interpolates between ranks (shown for contrast).
const PS = [50, 90, 95, 99];
const MIN = 60_000;

let client: pg.Client;
beforeAll(async () => {
  const url = pgDatabase();
  // The database is created by the service on first connect; here by hand.
  await pgCreateDatabase(url);
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE TABLE v (x double precision)');
});
afterAll(() => client?.end());

async function pgPercentiles(values: number[]): Promise<{ disc: number[]; cont: number[] }> {
  await client.query('TRUNCATE v');
  await client.query('INSERT INTO v SELECT unnest($1::float8[])', [values]);
  const cols = PS.map((p) => `percentile_disc(${p / 100}) WITHIN GROUP (ORDER BY x), percentile_cont(${p / 100}) WITHIN GROUP (ORDER BY x)`).join(', ');
  const row = (await client.query({ text: `SELECT ${cols} FROM v`, rowMode: 'array' })).rows[0] as number[];
  return { disc: PS.map((_, i) => row[2 * i]), cont: PS.map((_, i) => row[2 * i + 1]) };
}

describe('percentiles against PostgreSQL', () => {
  it('equal percentile_disc on random data of many sizes, with ties and fractions', async () => {
    const random = rng(14);
    for (const n of [1, 2, 3, 4, 7, 10, 19, 20, 21, 99, 100, 101, 333, 1000, 4321]) {
      const values = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? Math.round(random() * 50) : Math.round(random() * 100_000) / 100));
      const { disc, cont } = await pgPercentiles(values);
      expect(PS.map((p) => percentile(values, p)), `n=${n}`).toEqual(disc);
      // percentile_cont interpolates linearly at position (n-1)p: not what the API answers.
      const sorted = [...values].sort((a, b) => a - b);
      PS.forEach((p, i) => {
        const pos = ((n - 1) * p) / 100;
        const lo = Math.floor(pos);
        const hi = Math.ceil(pos);
        expect(cont[i]).toBeCloseTo(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo), 6);
      });
    }
  });

  it('the analytics of the same results answer the same percentiles on SQLite and PostgreSQL, equal to percentile_disc', async () => {
    const sqlite = harness(join(mkdtempSync(join(tmpdir(), 'mac-pct-')), 'state.db'));
    const postgres = harness(pgDatabase());
    const random = rng(7);
    const times = Array.from({ length: 240 }, () => Math.round(random() * 2000) + (random() < 0.1 ? 5000 : 0));
    const answers: unknown[] = [];
    try {
      for (const h of [sqlite, postgres] as Harness[]) {
        const check = h.seedCheck('dev', { id: 'c1' });
        const from = h.clock.now - 240 * MIN;
        times.forEach((rt, i) => {
          const s = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['eu-west-1'] });
          h.recorder.finishLocation('dev', s.checkSessionId, tcpAttempt('eu-west-1', from + i * MIN, { responseTime: rt }));
        });
        const q = `from=${from / 1000}&to=${h.clock.now / 1000}&metrics=responseTime_p50,responseTime_p90,responseTime_p95,responseTime_p99`;
        const res = await h.call('GET', `/v1/analytics/url-monitors/c1?${q}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        answers.push(JSON.parse(res.body.series[0]).data);
      }
    } finally {
      await sqlite.server.close();
      await postgres.server.close();
    }
    expect(answers[1]).toEqual(answers[0]);
    const { disc } = await pgPercentiles(times);
    const [row] = answers[0] as Array<Record<string, number>>;
    expect(PS.map((p) => row[`responseTime_p${p}`])).toEqual(disc);
  });
});
