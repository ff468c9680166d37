import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { pgDatabase } from '../../helpers/pg-url.js';

const taken = (what: string) => () => new Error(`${what} is taken`);

// Two stores on one PostgreSQL database are two instances: a uniqueness rule one of them checked
// before another committed is checked again inside the commit.
describe('uniqueness rules inside the commit (PostgreSQL)', () => {
  it('the second of two commits holding one value fails with the rule\'s error and writes nothing; its own record and other values pass', () => {
    const db = pgDatabase();
    const a = Store.open(db);
    const b = Store.open(db);
    try {
      // Both checked before either committed (what two instances may do at the same moment).
      const ta = a.begin('acc-a');
      const tb = b.begin('acc-b');
      ta.put('pages', 'p1', { id: 'p1', url: 'shop', customDomain: null });
      ta.unique('pages', 'url', 'shop', undefined, taken('url shop'));
      tb.put('pages', 'p2', { id: 'p2', url: 'shop', customDomain: 'status.example.com' });
      tb.unique('pages', 'customDomain', 'status.example.com', undefined, taken('domain'));
      tb.unique('pages', 'url', 'shop', undefined, taken('url shop'));
      ta.commit();
      expect(() => tb.commit()).toThrow('url shop is taken');
      expect(b.get('acc-b', 'pages', 'p2')).toBeUndefined();
      expect([...b.everywhere('pages')].map((r) => r.record.id)).toEqual(['p1']);

      // A record keeps its own value (a PUT), in its own account only.
      const again = a.begin('acc-a');
      again.put('pages', 'p1', { id: 'p1', url: 'shop', customDomain: 'status.example.com' });
      again.unique('pages', 'url', 'shop', 'p1', taken('url shop'));
      again.unique('pages', 'customDomain', 'status.example.com', 'p1', taken('domain'));
      again.commit();
      const foreign = b.begin('acc-b');
      foreign.put('pages', 'p1', { id: 'p1', url: 'shop' });
      foreign.unique('pages', 'url', 'shop', 'p1', taken('url shop'));
      expect(() => foreign.commit()).toThrow('url shop is taken');

      // Another kind, another field or another value is no conflict.
      const other = b.begin('acc-b');
      other.put('pages', 'p3', { id: 'p3', url: 'blog' });
      other.unique('pages', 'url', 'blog', undefined, taken('url blog'));
      other.put('dashboards', 'd1', { id: 'd1', customUrl: 'shop' });
      other.unique('dashboards', 'customUrl', 'shop', 'd1', taken('dashboard shop'));
      other.commit();
      expect(a.get('acc-b', 'pages', 'p3')).toMatchObject({ url: 'blog' });
    } finally {
      a.close();
      b.close();
    }
  });

  it('memory and SQLite stores keep the rule to the caller (one instance): the keys change nothing', () => {
    const s = Store.memory();
    const t1 = s.begin('dev');
    t1.put('pages', 'p1', { id: 'p1', url: 'shop' });
    t1.unique('pages', 'url', 'shop', undefined, taken('url shop'));
    t1.commit();
    expect(s.get('dev', 'pages', 'p1')).toMatchObject({ url: 'shop' });
  });
});
