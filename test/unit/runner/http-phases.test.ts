import { describe, expect, it } from 'vitest';
import { boundaries, phasesOf, timingsOf } from '../../../src/runner/http/phases.js';
import { buildRequest, shownHeaders } from '../../../src/runner/http/request.js';
import { evaluateAssertion } from '../../../src/runner/assertions.js';
import { apiRequestSchema, urlRequestSchema } from '../../../src/runner/types.js';

describe('HTTP phase arithmetic', () => {
  it('splits a complete request into wait, dns, tcp (with TLS), firstByte and download that add up', () => {
    const hop = { start: 100, socket: 100.4, lookup: 103.2, connect: 105.9, secureConnect: 112.1, response: 140.6, end: 151.5 };
    expect(phasesOf([hop])).toEqual({ wait: 0, dns: 3, tcp: 9, firstByte: 29, download: 11, total: 52 });
    expect(timingsOf(100, hop)).toEqual({ socket: 0, lookup: 3, connect: 6, secureConnect: 12, response: 41, end: 52 });
  });

  it('puts the time of a failed request into the phase it failed in', () => {
    // Connection refused: no connect, no response.
    expect(phasesOf([{ start: 0, socket: 0, lookup: 2, end: 9 }])).toEqual({ wait: 0, dns: 2, tcp: 7, firstByte: 0, download: 0, total: 9 });
    // Never answered: the wait for headers is firstByte.
    expect(phasesOf([{ start: 0, socket: 0, lookup: 1, connect: 2, end: 300 }])).toEqual({ wait: 0, dns: 1, tcp: 1, firstByte: 298, download: 0, total: 300 });
    // A TLS handshake that never finished: the time is tcp's, not firstByte's.
    expect(phasesOf([{ start: 0, socket: 0, lookup: 1, connect: 2, secure: true, end: 300 }])).toEqual({ wait: 0, dns: 1, tcp: 299, firstByte: 0, download: 0, total: 300 });
    // Failed before asking for a connection.
    expect(boundaries({ start: 5, end: 8 })).toEqual([5, 8, 8, 8, 8, 8]);
  });

  it('sums the hops of a redirect chain and never goes negative', () => {
    const a = { start: 0, socket: 0, lookup: 1, connect: 2, response: 10, end: 11 };
    const b = { start: 11, socket: 11, lookup: 12, connect: 13, response: 20, end: 30 };
    expect(phasesOf([a, b])).toEqual({ wait: 0, dns: 2, tcp: 2, firstByte: 15, download: 11, total: 30 });
    expect(phasesOf([{ start: 10, socket: 9, lookup: 12, connect: 11, response: 15, end: 14 }]).total).toBe(4);
    for (const v of Object.values(phasesOf([{ start: 10, socket: 9, lookup: 12, connect: 11, response: 15, end: 14 }]))) expect(v).toBeGreaterThanOrEqual(0);
  });
});

describe('HTTP request building', () => {
  it('adds query parameters, a content type by bodyType, basic auth and a user agent', () => {
    const req = apiRequestSchema.parse({
      method: 'POST',
      url: 'https://api.example.com/v1/items?x=1',
      queryParameters: [{ key: 'q', value: 'a b' }],
      headers: [{ key: 'Accept', value: 'application/json' }],
      body: '{"a":1}',
      bodyType: 'GRAPHQL',
      basicAuth: { username: 'u', password: 'p' },
    });
    const built = buildRequest(req);
    expect(built).toMatchObject({
      ok: true,
      method: 'POST',
      body: '{"a":1}',
      params: { q: 'a b' },
      headers: [['Accept', 'application/json'], ['Content-Type', 'application/json'], ['Authorization', 'Basic dTpw'], ['User-Agent', 'mac-monitoring']],
    });
    expect(built.ok && built.url.href).toBe('https://api.example.com/v1/items?x=1&q=a+b');
  });

  it('moves URL credentials into basic auth and rejects what cannot be sent', () => {
    const built = buildRequest(urlRequestSchema.parse({ url: 'http://me:s%40cret@example.com/' }));
    expect(built.ok && [built.url.href, built.headers[0]]).toEqual(['http://example.com/', ['Authorization', `Basic ${Buffer.from('me:s@cret').toString('base64')}`]]);
    expect(buildRequest(urlRequestSchema.parse({ url: 'not a url' }))).toEqual({ ok: false, message: 'invalid URL' });
    const header = buildRequest(apiRequestSchema.parse({ method: 'GET', url: 'http://x/', headers: [{ key: 'X', value: 'a\r\nInjected: 1' }] }));
    expect(header).toEqual({ ok: false, message: 'invalid value of header "X"' });
  });

  it('masks credentials when showing headers', () => {
    expect(shownHeaders([['Authorization', 'Bearer t'], ['X-Auth-Token', 't'], ['Accept', '*/*'], ['Accept', 'x']])).toEqual({
      Authorization: '<redacted>',
      'X-Auth-Token': '<redacted>',
      Accept: '*/*, x',
    });
  });

  it('defaults the reference leaves: URL monitors GET, follow redirects, IPv4, API body type NONE', () => {
    expect(urlRequestSchema.parse({ url: 'http://x/' })).toMatchObject({ method: 'GET', followRedirects: true, skipSSL: false, ipFamily: 'IPv4', assertions: [] });
    expect(apiRequestSchema.parse({ method: 'HEAD', url: 'http://x/' })).toMatchObject({ bodyType: 'NONE', body: '', headers: [], queryParameters: [], basicAuth: null });
  });
});

describe('HTTP assertion sources', () => {
  const values = {
    STATUS_CODE: 404,
    TEXT_BODY: '{"items":[{"id":"a"}],"count":1}',
    JSON_BODY: { items: [{ id: 'a' }], count: 1 },
    HEADERS: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' },
    RESPONSE_TIME: 120,
  };
  const check = (source: string, comparison: string, target = '', property = '', regex = '') =>
    evaluateAssertion({ source, comparison, target, property, regex }, values);

  it('reads status codes as text and compares them numerically for LESS_THAN/GREATER_THAN', () => {
    expect(check('STATUS_CODE', 'EQUALS', '404')).toMatchObject({ passed: true, actual: '404' });
    expect(check('STATUS_CODE', 'LESS_THAN', '500').passed).toBe(true);
    expect(check('STATUS_CODE', 'GREATER_THAN', '404').passed).toBe(false);
  });

  it('reads JSON_BODY at a path, HEADERS by name, TEXT_BODY with a regex', () => {
    expect(check('JSON_BODY', 'EQUALS', 'a', '$.items[0].id').passed).toBe(true);
    expect(check('JSON_BODY', 'NOT_HAS_KEY', 'total').passed).toBe(true);
    expect(check('JSON_BODY', 'IS_NULL', '', '$.missing').passed).toBe(true);
    expect(check('HEADERS', 'CONTAINS', 'utf-8', 'Content-Type')).toMatchObject({ passed: true, actual: 'application/json; charset=utf-8' });
    expect(check('HEADERS', 'EQUALS', '1', 'X-Request-Id', 'r-(\\d+)').passed).toBe(true);
    expect(check('HEADERS', 'IS_EMPTY', '', 'etag')).toMatchObject({ passed: true, actual: null });
    expect(check('TEXT_BODY', 'EQUALS', '1', '', '"count":(\\d+)').passed).toBe(true);
    expect(check('TEXT_BODY', 'EQUALS', 'a', '$.items[0].id').passed).toBe(true);
    expect(check('JSON_BODY', 'EQUALS', '1', '$.items.length').passed).toBe(true);
    expect(check('JSON_BODY', 'IS_NULL', '', '$.count.length').passed).toBe(true);
  });

  it('fails HTTP sources on a result that has none of them', () => {
    expect(evaluateAssertion({ source: 'HEADERS', comparison: 'NOT_EMPTY', target: '', property: '', regex: '' }, { RESPONSE_DATA: 'x' }).passed).toBe(false);
  });
});
