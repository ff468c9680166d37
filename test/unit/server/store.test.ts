import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { JournalCorrupt } from '../../../src/server/store/journal.js';

const tmpFile = () => join(mkdtempSync(join(tmpdir(), 'mac-store-')), 'state.jsonl');

describe('store and journal', () => {
  it('replays committed writes, keeps counters, and compacts the journal on open', () => {
    const file = tmpFile();
    const s1 = Store.open(file);
    for (let i = 0; i < 3; i++) {
      const tx = s1.begin('dev');
      const id = tx.nextInt('snippets');
      tx.put('snippets', id, { id, name: `s${id}` });
      tx.commit();
    }
    const del = s1.begin('dev');
    del.delete('snippets', 2);
    del.commit();
    s1.close();
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(4);
    const s2 = Store.open(file);
    expect(s2.list('dev', 'snippets').map((r) => r.id)).toEqual([1, 3]);
    expect(s2.counter('snippets')).toBe(3);
    s2.close();
    // Compacted: one counters line plus one line per live record.
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('drops a torn last line and refuses a corrupt line elsewhere', () => {
    const file = tmpFile();
    const s = Store.open(file);
    const tx = s.begin('dev');
    tx.put('snippets', 1, { id: 1 });
    tx.commit();
    s.close();
    appendFileSync(file, '{"a":"dev","o":[["p","snippets","2",{"id"');
    expect(Store.open(file).list('dev', 'snippets')).toHaveLength(1);
    writeFileSync(file, 'not json\n{"a":"dev","o":[]}\n');
    expect(() => Store.open(file)).toThrow(JournalCorrupt);
  });

  it('a transaction sees its own staged writes; nothing is visible before commit', () => {
    const s = Store.memory();
    const tx = s.begin('dev');
    tx.put('k', 'a', { id: 'a' });
    expect(tx.get('k', 'a')).toEqual({ id: 'a' });
    expect(tx.list('k')).toEqual([{ id: 'a' }]);
    expect(s.get('dev', 'k', 'a')).toBeUndefined();
    tx.commit();
    const tx2 = s.begin('dev');
    tx2.delete('k', 'a');
    expect(tx2.list('k')).toEqual([]);
    expect(s.list('dev', 'k')).toHaveLength(1);
  });
});
