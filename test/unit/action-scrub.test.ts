import { describe, expect, it } from 'vitest';
import { Scrubber } from '../../src/action/scrub.js';

describe('scrubbing what the action posts', () => {
  it('replaces every occurrence of a sensitive value, in the forms a plan shows it', () => {
    const s = new Scrubber();
    s.add('sk_live_abc"123<x>', undefined, 'ghs_token_1234');
    const text = [
      'name: sk_live_abc"123<x> and again sk_live_abc"123<x>',
      'json: "sk_live_abc\\"123<x>"',
      'html: sk_live_abc&quot;123&lt;x&gt;',
      'url: https://h/x?k=sk_live_abc%22123%3Cx%3E',
      'token ghs_token_1234',
    ].join('\n');
    const out = s.scrub(text);
    expect(out).not.toContain('sk_live_abc');
    expect(out).not.toContain('ghs_token_1234');
    expect(out).toBe(['name: *** and again ***', 'json: "***"', 'html: ***', 'url: https://h/x?k=***', 'token ***'].join('\n'));
  });

  it('replaces the longest value first, so no tail of a longer one survives', () => {
    const s = new Scrubber();
    s.add('abcd', 'abcdefgh');
    expect(s.scrub('x abcdefgh y abcd')).toBe('x *** y ***');
  });

  it('leaves values shorter than 4 characters alone (they would wreck the text and are no credential)', () => {
    const s = new Scrubber();
    s.add('on', '1', '');
    expect(s.scrub('on 1')).toBe('on 1');
  });

  it('watches an environment: every value read through it becomes sensitive', () => {
    const s = new Scrubber();
    const env = s.watch({ DB_PASSWORD: 'hunter2-long', OTHER: 'not-read-value' });
    expect(env.DB_PASSWORD).toBe('hunter2-long');
    expect(s.scrub('hunter2-long not-read-value')).toBe('*** not-read-value');
  });
});

describe('every form a value is rendered in', () => {
  // A multi-line secret holding `|`, `<` and `"`: what a PEM key or a password may hold.
  const SECRET = 'pem-line-one|AAAA\n<second> "line" BBBB\nthird-line-CCCC';

  it('as written, JSON-escaped, folded, HTML-escaped, pipe-escaped, URL-encoded and line by line', () => {
    const s = new Scrubber();
    s.add(SECRET);
    const folded = SECRET.replace(/\n/g, ' ');
    const forms = [
      SECRET,
      JSON.stringify(SECRET),
      folded,
      folded.replace(/\|/g, '\\|'),
      '&lt;second&gt; &quot;line&quot; BBBB',
      JSON.stringify(SECRET).replace(/\|/g, '\\|'),
      encodeURIComponent(SECRET),
      '+   pem-line-one|AAAA',
      '+   <second> "line" BBBB',
    ];
    for (const form of forms) {
      const out = s.scrub(`before ${form} after`);
      for (const part of ['pem-line-one', 'AAAA', 'BBBB', 'CCCC', 'second']) expect(out, form).not.toContain(part);
    }
  });

  it('cut short with an ellipsis: the start of the value before the … is masked', () => {
    const s = new Scrubber();
    s.add('sk_live_0123456789abcdef');
    expect(s.scrub('value: "sk_live_0123…" next')).toBe('value: "***…" next');
    expect(s.scrub('x sk_l… y')).toBe('x ***… y');
    // Text that only looks like the start of nothing is left alone, and so are ellipses elsewhere.
    expect(s.scrub('_…and 3 more_ skip… sk_… ')).toBe('_…and 3 more_ skip… sk_… ');
  });

  it('never masks the public names of the run, even when a read value occurs in them', () => {
    const s = new Scrubber();
    s.keepPublic('acme/shop', 'https://github.com');
    s.add('shop', 'acme/shop', 'token-shop-9999');
    const link = 'https://github.com/acme/shop/blob/abc/monitoring/x.yaml#L1';
    expect(s.scrub(`${link} and shop and token-shop-9999`)).toBe(`${link} and *** and ***`);
    // A value reaching across the edge of a public name is masked, the name with it.
    s.add('shop/blob/abc');
    expect(s.scrub(link)).not.toContain('shop/blob/abc');
  });
});
