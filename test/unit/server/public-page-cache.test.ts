import { describe, expect, it } from 'vitest';
import { PublicPageCache, STALE_MS } from '../../../src/server/pages/cache.js';
import type { Store } from '../../../src/server/store/store.js';

// The shared cache of public pages: fresh, stale while one rendering replaces it, expired.

/** A store whose configuration version the test moves. */
function versions(): { store: Store; bump: () => void } {
  let v = 1;
  return { store: { localVersion: () => v } as unknown as Store, bump: () => void v++ };
}

/** A render whose answers the test releases one by one; `calls` counts the renderings started. */
function renders() {
  const pending: Array<(r: Response) => void> = [];
  let calls = 0;
  return {
    render: () => {
      calls++;
      return new Promise<Response>((resolve) => pending.push(resolve));
    },
    get calls() {
      return calls;
    },
    answer(body: string, status = 200) {
      const next = pending.shift();
      if (!next) throw new Error('no rendering waits');
      next(new Response(body, { status, headers: { 'content-type': 'text/plain' } }));
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

/** A cache (TTL 5 s) holding the page 'one' of key `k`, rendered at time 0; `at(ms)` moves its clock. */
async function heldPage() {
  let now = 0;
  const { store, bump } = versions();
  const cache = new PublicPageCache(store, 5000, ['checks'], () => now);
  const r = renders();
  const first = cache.get('k', r.render);
  await tick();
  r.answer('one');
  expect(await (await first).text()).toBe('one');
  return { cache, r, bump, at: (ms: number) => void (now = ms) };
}

describe('public page cache', () => {
  it('serves a page past its time at once while one rendering in the background replaces it; visitors after get the new page', async () => {
    const { cache, r, at } = await heldPage();
    at(4999);
    expect(await (await cache.get('k', r.render)).text()).toBe('one');
    expect(r.calls).toBe(1);
    // Past the TTL: the held page at once, one rendering started for any number of visitors.
    at(5001);
    expect(await (await cache.get('k', r.render)).text()).toBe('one');
    expect(await (await cache.get('k', r.render)).text()).toBe('one');
    expect(r.calls).toBe(2);
    r.answer('two');
    await tick();
    await tick();
    expect(await (await cache.get('k', r.render)).text()).toBe('two');
    expect(r.calls).toBe(2);
  });

  it('renders on the request path when the page is older than its time plus STALE_MS, or the configuration changed on this instance', async () => {
    const { cache, r, bump, at } = await heldPage();
    at(5000 + STALE_MS);
    let waited = false;
    const late = cache.get('k', r.render).then((res) => ((waited = true), res.text()));
    await tick();
    expect(waited).toBe(false);
    r.answer('two');
    expect(await late).toBe('two');
    // A change of the configuration: never the old page.
    bump();
    const changed = cache.get('k', r.render);
    await tick();
    r.answer('three');
    expect(await (await changed).text()).toBe('three');
    expect(r.calls).toBe(3);
  });

  it('does not hand a visitor after a change of the configuration the rendering started before it', async () => {
    const { cache, r, bump, at } = await heldPage();
    at(6000);
    // Stale: served at once, a background rendering of the configuration before the change starts.
    expect(await (await cache.get('k', r.render)).text()).toBe('one');
    expect(r.calls).toBe(2);
    bump();
    const changed = cache.get('k', r.render);
    await tick();
    expect(r.calls).toBe(3);
    r.answer('two, before the change');
    r.answer('three, after it');
    expect(await (await changed).text()).toBe('three, after it');
    await tick();
    expect(await (await cache.get('k', r.render)).text()).toBe('three, after it');
  });

  it('keeps the held page when the background rendering fails or answers 5xx', async () => {
    const { cache, r, at } = await heldPage();
    at(6000);
    expect(await (await cache.get('k', r.render)).text()).toBe('one');
    r.answer('database unavailable', 503);
    await tick();
    await tick();
    expect(await (await cache.get('k', r.render)).text()).toBe('one');
    // Another rendering started (the held page is still past its time), and one that throws.
    expect(r.calls).toBe(3);
    let thrown = 0;
    const failing = () => {
      thrown++;
      return Promise.reject(new Error('boom'));
    };
    r.answer('ignored', 503);
    await tick();
    await tick();
    expect(await (await cache.get('k', failing)).text()).toBe('one');
    await tick();
    expect(thrown).toBe(1);
    // Still served while stale; then a visitor waits for a rendering that works.
    expect(await (await cache.get('k', r.render)).text()).toBe('one');
    await tick();
    r.answer('two');
    await tick();
    await tick();
    expect(await (await cache.get('k', r.render)).text()).toBe('two');
  });
});
