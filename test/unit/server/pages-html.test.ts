import { describe, expect, it } from 'vitest';
import { CHUNK, Html, html, htmlBytes } from '../../../src/server/pages/html.js';

describe('page markup in chunks', () => {
  it('a large page is held in chunks that join to the markup one string would be, and encode to the same bytes', () => {
    const names = Array.from({ length: 3000 }, (_, i) => `check <${i}> “ü” ✓ & 'x'`);
    const item = (n: string, i: number) => html`<li data-i="${i}">${n}</li>`;
    const list = html`<ul>${names.map(item)}</ul>`;
    const page = html`<!doctype html><main>${list}${html`<p>${'–'}</p>`}</main>${null}${false}${7}`;
    let expected = '<ul>';
    names.forEach((n, i) => (expected += `<li data-i="${i}">${n.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;')}</li>`));
    expected += '</ul>';
    const whole = `<!doctype html><main>${expected}<p>–</p></main>7`;
    expect(list.chunks).toBeDefined();
    expect(page.chunks!.length).toBeGreaterThan(2);
    // No chunk grows much past CHUNK: none is made one large string.
    for (const c of page.chunks!) expect(c.length).toBeLessThan(CHUNK + 200);
    expect(page.value).toBe(whole);
    expect(String(page)).toBe(whole);
    expect(htmlBytes(page).equals(Buffer.from(whole, 'utf8'))).toBe(true);
  });

  it('small markup stays one string; a string or small markup encodes as itself', () => {
    const small = html`<p>${'a & b'}</p>`;
    expect(small.chunks).toBeUndefined();
    expect(small.value).toBe('<p>a &amp; b</p>');
    expect(htmlBytes(small).toString('utf8')).toBe('<p>a &amp; b</p>');
    expect(htmlBytes('é').equals(Buffer.from('é', 'utf8'))).toBe(true);
    expect(new Html('<b>x</b>').value).toBe('<b>x</b>');
  });
});
