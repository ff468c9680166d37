import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { MAX_RUN_READ, Store } from '../../../src/server/store/store.js';
import { JournalCorrupt } from '../../../src/server/store/journal.js';
import { StateError, UnboundedRead } from '../../../src/server/store/errors.js';
import { Retention } from '../../../src/server/store/retention.js';
import { SCHEMA_VERSION } from '../../../src/server/store/sqlite.js';
import { pgDatabase } from '../../helpers/pg-url.js';

const tmpFile = (name = 'state.db') => join(mkdtempSync(join(tmpdir(), 'mac-store-')), name);

const IDX = {
  results: { check: 'checkId', time: 'startedAt', expires: true },
  groups: { check: 'checkId', time: 'lastSeen', expires: false },
  figured: { check: 'checkId', time: 'startedAt', expires: true, figures: { numbers: ['failed'], keys: ['type', 'where'] } },
} as const;

const at = (min: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + min * 60_000).toISOString();

function put(s: Store, account: string, kind: string, id: string | number, rec: Record<string, unknown>) {
  const tx = s.begin(account);
  tx.put(kind, id, rec);
  tx.commit();
}

describe.each([
  ['memory', () => Store.memory(IDX)],
  ['sqlite', () => Store.open(tmpFile(), IDX)],
  ['postgres', () => Store.open(pgDatabase(), IDX)],
] as const)('store on %s', (_name, open) => {
  it('a transaction sees its own staged writes; nothing is visible before commit', () => {
    const s = open();
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
    s.close();
  });

  it('keeps creation order (an update stays in place, a re-created record moves last), counters and accounts apart', () => {
    const s = open();
    for (let i = 0; i < 3; i++) {
      const tx = s.begin('dev');
      const id = tx.nextInt('snippets');
      tx.put('snippets', id, { id, name: `s${id}` });
      tx.commit();
    }
    put(s, 'dev', 'snippets', 1, { id: 1, name: 'renamed' });
    put(s, 'dev', 'results', 'r1', { id: 'r1', checkId: 'c', startedAt: at(0) });
    const tx = s.begin('dev');
    tx.delete('snippets', 2);
    tx.commit();
    put(s, 'dev', 'snippets', 2, { id: 2, name: 'again' });
    expect(s.list('dev', 'snippets').map((r) => r.name)).toEqual(['renamed', 's3', 'again']);
    expect(s.counter('snippets')).toBe(3);
    expect(s.get('other', 'snippets', 1)).toBeUndefined();
    expect(s.get('other', 'results', 'r1')).toBeUndefined();
    expect(s.query('other', 'results', { checkId: 'c', limit: 1000 })).toEqual([]);
    expect(s.get('dev', 'results', 'r1')).toMatchObject({ checkId: 'c' });
    expect(s.accountIds()).toEqual(['dev']);
    s.close();
  });

  it('queries run data by check and inclusive time window, newest first (ties: newest created first), paged', () => {
    const s = open();
    const times = [5, 1, 3, 3, 9];
    times.forEach((m, i) => put(s, 'dev', 'results', `r${i}`, { id: `r${i}`, checkId: i === 4 ? 'other' : 'c', startedAt: at(m) }));
    const ids = (q: Parameters<Store['query']>[2]) => s.query('dev', 'results', { limit: 1000, ...q }).map((r) => r.id);
    expect(ids({ checkId: 'c' })).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(ids({ checkId: 'c', order: 'time-desc' })).toEqual(['r0', 'r3', 'r2', 'r1']);
    expect(ids({ checkId: 'c', fromMs: Date.parse(at(3)), toMs: Date.parse(at(5)), order: 'time-desc' })).toEqual(['r0', 'r3', 'r2']);
    expect(ids({ order: 'created-desc', limit: 2, offset: 1 })).toEqual(['r3', 'r2']);
    expect(s.countQuery('dev', 'results', { checkId: 'c', fromMs: Date.parse(at(2)) })).toBe(3);
    s.close();
  });

  it('refuses a read of run data without a bound: a list of the kind whole, a query without a limit or above MAX_RUN_READ', () => {
    const s = open();
    put(s, 'dev', 'results', 'a', { id: 'a', checkId: 'c', startedAt: at(0) });
    expect(() => s.list('dev', 'results')).toThrow(UnboundedRead);
    expect(() => [...s.everywhere('results')]).toThrow(UnboundedRead);
    expect(() => s.query('dev', 'results', { checkId: 'c' })).toThrow(/unbounded read of run data \(results\): a query without a limit/);
    expect(() => s.query('dev', 'results', { limit: MAX_RUN_READ + 1 })).toThrow(UnboundedRead);
    expect(() => s.begin('dev').query('results', { checkId: 'c' })).toThrow(UnboundedRead);
    expect(s.query('dev', 'results', { checkId: 'c', limit: MAX_RUN_READ })).toHaveLength(1);
    // Configuration is listed whole as before.
    put(s, 'dev', 'snippets', 1, { id: 1 });
    expect(s.list('dev', 'snippets')).toHaveLength(1);
    s.close();
  });

  it('filters run data on its figure columns in the database (keys and numbers), counted alike', () => {
    const s = open();
    const rows = [
      ['a', 'FINAL', 'eu', true],
      ['b', 'ATTEMPT', 'eu', true],
      ['c', 'FINAL', 'us', false],
      ['d', 'FINAL', 'eu', false],
      ['e', 'FINAL', null, 1],
    ] as const;
    rows.forEach(([id, type, where, failed], i) => put(s, 'dev', 'figured', id, { id, checkId: 'k', startedAt: at(i), type, ...(where === null ? {} : { where }), failed }));
    const ids = (where: Array<{ path: string; in: Array<string | number | boolean> }>) => s.query('dev', 'figured', { checkId: 'k', where, order: 'time-desc', limit: 10 }).map((r) => r.id);
    expect(ids([{ path: 'type', in: ['FINAL'] }])).toEqual(['e', 'd', 'c', 'a']);
    expect(ids([{ path: 'type', in: ['FINAL'] }, { path: 'where', in: ['eu'] }])).toEqual(['d', 'a']);
    expect(ids([{ path: 'failed', in: [true] }])).toEqual(['e', 'b', 'a']);
    expect(ids([{ path: 'failed', in: [false] }, { path: 'type', in: ['FINAL', 'ATTEMPT'] }])).toEqual(['d', 'c']);
    expect(ids([{ path: 'where', in: [] }])).toEqual([]);
    expect(s.query('dev', 'figured', { checkId: 'k', where: [{ path: 'type', in: ['FINAL'] }], order: 'time-desc', limit: 1 }).map((r) => r.id)).toEqual(['e']);
    expect(s.countQuery('dev', 'figured', { checkId: 'k', where: [{ path: 'type', in: ['FINAL'] }, { path: 'failed', in: [false] }] })).toBe(2);
    expect(() => ids([{ path: 'other', in: ['x'] }])).toThrow(/not a figure/);
    s.close();
  });

  it('reads only the asked fields of run data, nested as stored, leaving out missing and null ones', () => {
    const s = open();
    put(s, 'dev', 'results', 'a', { id: 'a', checkId: 'c', startedAt: at(0), ok: true, n: null, api: { response: { status: 200, body: 'big' }, other: 1 } });
    put(s, 'dev', 'results', 'b', { id: 'b', checkId: 'c', startedAt: at(1), ok: false, api: null });
    expect(s.query('dev', 'results', { checkId: 'c', fields: ['ok', 'n', 'api.response.status', 'missing'], limit: 1000 })).toEqual([
      { ok: true, api: { response: { status: 200 } } },
      { ok: false },
    ]);
    // Other fields in another order: the same records.
    expect(s.query('dev', 'results', { checkId: 'c', fields: ['api.response.status', 'ok'], limit: 1000 })).toEqual([
      { ok: true, api: { response: { status: 200 } } },
      { ok: false },
    ]);
    s.close();
  });

  it('deletes a check’s run data in the deleting transaction, and reads through it see that', () => {
    const s = open();
    put(s, 'dev', 'results', 'a', { id: 'a', checkId: 'c', startedAt: at(0) });
    put(s, 'dev', 'results', 'b', { id: 'b', checkId: 'd', startedAt: at(0) });
    put(s, 'other', 'results', 'x', { id: 'x', checkId: 'c', startedAt: at(0) });
    const tx = s.begin('dev');
    tx.put('results', 'n', { id: 'n', checkId: 'c', startedAt: at(1) });
    tx.deleteByCheck('results', 'c');
    expect(tx.get('results', 'a')).toBeUndefined();
    expect(tx.query('results', { checkId: 'c', limit: 1000 })).toEqual([]);
    expect(s.get('dev', 'results', 'a')).toBeDefined();
    tx.commit();
    expect(s.query('dev', 'results', { limit: 1000 }).map((r) => r.id)).toEqual(['b']);
    expect(s.query('other', 'results', { limit: 1000 }).map((r) => r.id)).toEqual(['x']);
    s.close();
  });

  it('retention deletes expired run data in batches and keeps configuration and non-expiring kinds', () => {
    const s = open();
    for (let i = 0; i < 5; i++) put(s, 'dev', 'results', `old${i}`, { id: `old${i}`, checkId: 'c', startedAt: at(i) });
    put(s, 'dev', 'results', 'new', { id: 'new', checkId: 'c', startedAt: at(24 * 60 + 10) });
    put(s, 'dev', 'groups', 'g', { id: 'g', checkId: 'c', firstSeen: at(0), lastSeen: at(1) });
    put(s, 'dev', 'checks', 'c', { id: 'c', created_at: at(0) });
    const version = s.version('results');
    const r = new Retention(s, { days: 1, timeScale: 1, batch: 2, idleMs: 1000, now: () => Date.parse(at(24 * 60 + 10)), onError: (e) => { throw e; } });
    expect([r.step(), r.step(), r.step(), r.step()]).toEqual([2, 2, 1, 0]);
    expect(s.query('dev', 'results', { limit: 1000 }).map((x) => x.id)).toEqual(['new']);
    expect(s.get('dev', 'groups', 'g')).toMatchObject({ firstSeen: at(0), lastSeen: at(1) });
    expect(s.get('dev', 'checks', 'c')).toBeDefined();
    expect(s.version('results')).toBeGreaterThan(version);
    s.close();
  });
});

describe('SQLite database file', () => {
  it('keeps records, creation order and counters across a reopen', () => {
    const file = tmpFile();
    const s1 = Store.open(file, IDX);
    for (let i = 0; i < 3; i++) {
      const tx = s1.begin('dev');
      const id = tx.nextInt('snippets');
      tx.put('snippets', id, { id });
      tx.put('results', `r${id}`, { id: `r${id}`, checkId: 'c', startedAt: at(id) });
      tx.commit();
    }
    s1.close();
    const s2 = Store.open(file, IDX);
    expect(s2.list('dev', 'snippets').map((r) => r.id)).toEqual([1, 2, 3]);
    expect(s2.query('dev', 'results', { order: 'time-desc', limit: 1000 }).map((r) => r.id)).toEqual(['r3', 'r2', 'r1']);
    expect(s2.counter('snippets')).toBe(3);
    s2.close();
  });

  it('refuses a schema newer than the code knows, naming the versions, and leaves the file alone', () => {
    const file = tmpFile();
    Store.open(file, IDX).close();
    const db = new Database(file);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const before = readFileSync(file);
    expect(() => Store.open(file, IDX)).toThrow(new RegExp(`schema version ${SCHEMA_VERSION + 1} is newer than this mac serve knows \\(${SCHEMA_VERSION}\\)`));
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a SQLite database that mac serve did not create', () => {
    const file = tmpFile();
    const db = new Database(file);
    db.exec('CREATE TABLE people (name TEXT)');
    db.close();
    expect(() => Store.open(file, IDX)).toThrow(/did not create/);
  });
});

describe('journal import', () => {
  const journal = [
    '{"c":{"snippets":2}}',
    '{"a":"dev","o":[["p","snippets","1",{"id":1,"name":"one"}],["p","snippets","2",{"id":2,"name":"two"}]]}',
    '{"a":"dev","o":[["p","results","r1",{"id":"r1","checkId":"c","startedAt":"2026-01-01T00:00:00.000Z"}]]}',
    '{"a":"dev","o":[["d","snippets","1"]]}',
  ];

  it('imports a journal once into a database at the same path and keeps the journal as FILE.journal-backup', () => {
    const file = tmpFile('state.jsonl');
    const text = `${journal.join('\n')}\n{"a":"dev","o":[["p","snip`;
    writeFileSync(file, text);
    const s = Store.open(file, IDX);
    expect(s.imported).toEqual({ entries: 4, backup: `${file}.journal-backup` });
    expect(s.list('dev', 'snippets')).toEqual([{ id: 2, name: 'two' }]);
    expect(s.counter('snippets')).toBe(2);
    expect(s.query('dev', 'results', { checkId: 'c', limit: 1000 })).toHaveLength(1);
    s.close();
    expect(readFileSync(`${file}.journal-backup`, 'utf8')).toBe(text);
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
    const again = Store.open(file, IDX);
    expect(again.imported).toBeUndefined();
    expect(again.list('dev', 'snippets')).toHaveLength(1);
    again.close();
  });

  it.each([
    ['an empty middle line', [journal[0], '', journal[1]], 2, /state\.jsonl:2: empty journal line/],
    ['a {} middle line', [journal[0], '{}', journal[1]], 2, /state\.jsonl:2: not a journal entry/],
    ['an unreadable middle line', [journal[0], journal[1], '{"a":"dev","o":[', journal[2]], 3, /state\.jsonl:3: unreadable journal line/],
  ])('refuses a journal with %s, naming the line, and changes nothing', (_what, lines, line, message) => {
    const file = tmpFile('state.jsonl');
    const text = `${lines.join('\n')}\n`;
    writeFileSync(file, text);
    let err: unknown;
    try {
      Store.open(file, IDX);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JournalCorrupt);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(`:${line}:`);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.journal-backup`)).toBe(false);
  });

  it('refuses a file that is neither a database nor a journal and leaves it byte-identical', () => {
    const file = tmpFile('notes.txt');
    const text = 'shopping list\nmilk\n\neggs\n';
    writeFileSync(file, text);
    expect(() => Store.open(file, IDX)).toThrow(StateError);
    expect(() => Store.open(file, IDX)).toThrow(/neither a mac serve database nor a mac serve journal/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
