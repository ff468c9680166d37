import { describe, expect, it } from 'vitest';
import { alertChannel, dnsCheck, tcpCheck, environmentVariable } from '../../src/index.js';
import { DEFINITIONS } from '../../src/schema/definitions.js';

describe('typed helpers for *.mac.ts', () => {
  it('add the kind and produce definitions the schemas accept', () => {
    const tcp = tcpCheck({ id: 'db', name: 'DB', request: { hostname: 'db.internal', port: 5432 }, frequency: 0, frequencyOffset: 10 });
    expect(tcp.kind).toBe('TcpCheck');
    expect(DEFINITIONS.TcpCheck.schema.safeParse(tcp).success).toBe(true);
    const channel = alertChannel({ id: 'hook', type: 'WEBHOOK', config: { name: 'h', url: 'https://example.com' } });
    expect(DEFINITIONS.AlertChannel.schema.safeParse(channel).success).toBe(true);
    expect(environmentVariable({ key: 'A', value: 'b' }).kind).toBe('EnvironmentVariable');
  });

  it('take their parameter types from the zod schemas', () => {
    // Each line below must fail to type-check (tsc --noEmit runs over tests); at run time the
    // schema rejects the same definitions.
    // @ts-expect-error frequency 3 is not an allowed value
    const badFrequency = tcpCheck({ id: 'a', name: 'A', request: { hostname: 'h', port: 1 }, frequency: 3 });
    // @ts-expect-error unknown field
    const typo = dnsCheck({ id: 'a', name: 'A', request: { query: 'q', recordType: 'A' }, setupSnipet: 'x' });
    // @ts-expect-error EMAIL config has no url
    const wrongConfig = alertChannel({ id: 'c', type: 'EMAIL', config: { url: 'https://example.com' } });
    for (const def of [badFrequency, typo, wrongConfig]) expect(DEFINITIONS[def.kind].schema.safeParse(def).success).toBe(false);
  });
});
