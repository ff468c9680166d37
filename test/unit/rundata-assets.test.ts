import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/server/store/store.js';
import { RUN_COLL, RUN_INDEX } from '../../src/server/rundata/collections.js';
import { ASSET_RESULTS_PER_CHECK, purgeCheckRunData, RunRecorder } from '../../src/server/rundata/recorder.js';
import type { RunAsset } from '../../src/runner/types.js';
import type { StoredAsset } from '../../src/server/rundata/types.js';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const assets = (tag: string): RunAsset[] => [
  { name: 'screenshot.png', type: 'screenshot', contentType: 'image/png', data: Buffer.concat([png, Buffer.from(tag)]) },
  { name: 'trace.zip', type: 'trace', contentType: 'application/zip', data: Buffer.from(`PK\u0003\u0004${tag}`) },
];

describe.each([
  ['memory', () => Store.memory(RUN_INDEX)],
  ['sqlite', () => Store.open(join(mkdtempSync(join(tmpdir(), 'mac-assets-')), 'state.db'), RUN_INDEX)],
])('result assets on the %s store', (_name, open) => {
  it('stores them by result and name, keeps those of the last results of a check, and expires and purges them like run data', () => {
    const store = open();
    let now = Date.parse('2026-11-01T00:00:00Z');
    const recorder = new RunRecorder(store, () => now);
    const ids = Array.from({ length: ASSET_RESULTS_PER_CHECK + 2 }, (_, i) => `r${i}`);
    for (const id of ids) {
      now += 60_000;
      recorder.storeAssets('acme', 'c1', id, assets(id));
    }
    recorder.storeAssets('acme', 'c2', 'other', assets('other'));
    const shot = store.get<StoredAsset & Record<string, unknown>>('acme', RUN_COLL.checkResultAssets, `${ids.at(-1)}/screenshot.png`)!;
    expect(shot).toMatchObject({ checkId: 'c1', resultId: ids.at(-1), type: 'screenshot', contentType: 'image/png', size: png.length + 3 });
    expect(Buffer.from(shot.data, 'base64').subarray(0, 8)).toEqual(png.subarray(0, 8));
    // Another account holds nothing under the same ids.
    expect(store.get('beta', RUN_COLL.checkResultAssets, `${ids.at(-1)}/screenshot.png`)).toBeUndefined();
    // The two oldest results lost their files; the last ASSET_RESULTS_PER_CHECK kept both.
    const held = (id: string) => ['screenshot.png', 'trace.zip'].filter((n) => store.get('acme', RUN_COLL.checkResultAssets, `${id}/${n}`) !== undefined).length;
    expect(ids.map(held)).toEqual([0, 0, ...Array(ASSET_RESULTS_PER_CHECK).fill(2)]);
    expect(held('other')).toBe(2);

    // Retention deletes by created_at, like the other run data.
    expect(store.expire(RUN_COLL.checkResultAssets, Date.parse('2026-11-01T00:05:30Z'), 1000)).toBe(6);
    expect(ids.map(held)).toEqual([0, 0, 0, 0, 0, ...Array(ASSET_RESULTS_PER_CHECK - 3).fill(2)]);

    // A deleted check takes its files along.
    const tx = store.begin('acme');
    purgeCheckRunData(tx, 'c1');
    tx.commit();
    expect(ids.map(held).every((n) => n === 0)).toBe(true);
    expect(held('other')).toBe(2);
    store.close();
  });
});
