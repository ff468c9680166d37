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
