import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cleanErrorMessage, errorHash, rawErrorMessage, type FailureFacts } from '../../src/server/rundata/error-message.js';
import type { ApiCheckResult } from '../../src/server/rundata/types.js';

function api(over: Partial<ApiCheckResult> = {}): ApiCheckResult {
  return {
    assertions: [],
    request: { method: 'TCP', url: 'tcp://db:5432', data: '', headers: {}, params: {} },
    response: { status: 0, statusText: 'OK', body: '', headers: {}, timings: null, timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 0, download: 0, total: 3 } },
    requestError: null,
    jobLog: null,
    jobAssets: null,
    pcapDataUrl: null,
    ...over,
  };
}

const facts = (over: Partial<FailureFacts>): FailureFacts => ({
  shouldFail: false,
  maxResponseTime: 5000,
  responseTime: 12,
  apiCheckResult: api(),
  multiStepCheckResult: null,
  ...over,
});

describe('rawErrorMessage', () => {
  it('an ICMP run that lost too many replies names its loss and the threshold, before its assertions', () => {
    const icmp = (loss: number) =>
      api({
        request: { method: 'ICMP', url: 'icmp://10.0.0.9', data: '', headers: {}, params: {} },
        response: { ...api().response, body: JSON.stringify({ packetLoss: loss, packetsSent: 10, packetsReceived: 10 - loss / 10 }) },
        assertions: [{ source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '5', regex: '', actual: null, passed: false }],
      });
    expect(rawErrorMessage(facts({ apiCheckResult: icmp(100), maxPacketLossThreshold: 20 }))).toBe('Packet loss 100% reached 20%');
    expect(rawErrorMessage(facts({ apiCheckResult: icmp(10), maxPacketLossThreshold: 20 }))).toBe('LATENCY LESS_THAN "5" failed, actual ""');
    expect(rawErrorMessage(facts({ apiCheckResult: icmp(100), maxPacketLossThreshold: null }))).toBe('LATENCY LESS_THAN "5" failed, actual ""');
    expect(cleanErrorMessage('Packet loss 100% reached 20%')).toBe('Packet loss <num>% reached <num>%');
  });
  it('prefers the request error', () => {
    const a = api({ requestError: 'connect ECONNREFUSED 10.0.0.7:5432', assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'x', property: '', regex: '', actual: 'y', passed: false }] });
    expect(rawErrorMessage(facts({ apiCheckResult: a }))).toBe('connect ECONNREFUSED 10.0.0.7:5432');
  });
  it('names the first failed assertion with its actual value', () => {
    const a = api({
      assertions: [
        { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '100', property: '', regex: '', actual: '12', passed: true },
        { source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG', property: '', regex: '', actual: 'ERR', passed: false },
        { source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'z', property: '', regex: '', actual: 'ERR', passed: false },
      ],
    });
    expect(rawErrorMessage(facts({ apiCheckResult: a }))).toBe('RESPONSE_DATA CONTAINS "PONG" failed, actual "ERR"');
  });
  it('falls back to the response-time limit', () => {
    expect(rawErrorMessage(facts({ responseTime: 5200.4, maxResponseTime: 5000 }))).toBe('Response time 5200ms exceeded 5000ms');
  });
  it('reports an inverted pass for shouldFail checks', () => {
    expect(rawErrorMessage(facts({ shouldFail: true }))).toBe('Check was expected to fail but passed');
  });
  it('reads a multi-step error when there is no API result', () => {
    const m = { errors: ['multi-step scripts are not executed by this service'], startTime: 0, endTime: 0, runtimeVersion: null, jobLog: [], jobAssets: null };
    expect(rawErrorMessage(facts({ apiCheckResult: null, multiStepCheckResult: m }))).toBe('multi-step scripts are not executed by this service');
  });
});

describe('cleanErrorMessage', () => {
  const cases: Array<[string, string]> = [
    ['connect ECONNREFUSED 10.0.0.7:5432', 'connect ECONNREFUSED <ip>'],
    ['getaddrinfo ENOTFOUND db.internal.example', 'getaddrinfo ENOTFOUND db.internal.example'],
    ['RESPONSE_DATA CONTAINS "PONG" failed, actual "ERR 42"', 'RESPONSE_DATA CONTAINS <str> failed, actual <str>'],
    ["unexpected token 'x' at position 17", 'unexpected token <str> at position <num>'],
    ["can't reach host", "can't reach host"],
    ['cmd `ls -la` failed', 'cmd <str> failed'],
    ['GET https://api.example.com/v1/items?id=7 timed out', 'GET <url> timed out'],
    ['check 0b7c2f1e-3a4d-4c5e-9f60-123456789abc failed', 'check <uuid> failed'],
    ['at 2024-05-01T10:20:30.123Z the job died', 'at <date> the job died'],
    ['connect ECONNREFUSED ::1:5432', 'connect ECONNREFUSED <ip>'],
    ['connect to [2001:db8::1]:443 failed', 'connect to <ip> failed'],
    ['host fe80::1ff:fe23:4567:890a unreachable', 'host <ip> unreachable'],
    ['segfault at 0xdeadBEEF', 'segfault at <hex>'],
    ['commit 3fa85f6457 not found', 'commit <hex> not found'],
    ['word deadbeef stays but abcdef12 goes', 'word deadbeef stays but <hex> goes'],
    ['Response time 5200ms exceeded 5000ms', 'Response time <num>ms exceeded <num>ms'],
    ['took 12.5 s', 'took <num> s'],
    ['  lots \n of\t space  ', 'lots of space'],
    ['Error: something', 'Error: something'],
    // Not an address (999 > 255), so only numbers: decimals keep one dot each.
    ['version 999.1.2.3 is odd', 'version <num>.<num> is odd'],
  ];
  it.each(cases)('%j -> %j', (raw, cleaned) => {
    expect(cleanErrorMessage(raw)).toBe(cleaned);
  });
  it('cuts at 1000 characters', () => {
    expect(cleanErrorMessage('x'.repeat(1500))).toHaveLength(1000);
  });
  it('groups messages that differ only in variable parts', () => {
    expect(cleanErrorMessage('connect ECONNREFUSED 10.0.0.7:5432')).toBe(cleanErrorMessage('connect ECONNREFUSED 192.168.1.20:6379'));
  });
});

describe('errorHash', () => {
  it('is the lowercase hex SHA-256 of the UTF-8 text', () => {
    const text = 'connect ECONNREFUSED <ip>';
    expect(errorHash(text)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
    expect(errorHash(text)).toMatch(/^[0-9a-f]{64}$/);
    expect(errorHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
