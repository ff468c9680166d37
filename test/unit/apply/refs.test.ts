import { describe, expect, it } from 'vitest';
import { refsIn } from '../../../src/apply/refs.js';

describe('refsIn', () => {
  it('finds exact markers at any depth', () => {
    const body = {
      setupSnippetId: { $ref: 'Snippet/s' },
      alertChannelSubscriptions: [{ alertChannelId: { $ref: 'AlertChannel/mail' }, activated: true }],
      request: { $ref: 'not-a-marker', other: 1 },
    };
    expect([...refsIn(body)].sort()).toEqual(['AlertChannel/mail', 'Snippet/s']);
    expect(refsIn(undefined).size).toBe(0);
  });
});
