import { describe, expect, it } from 'vitest';
import { asText, assertionFailureMessage, evaluateAssertion } from '../../../src/runner/assertions.js';
import { parseJsonPath, readJsonPath } from '../../../src/runner/jsonpath.js';
import type { Assertion } from '../../../src/runner/types.js';
import { boundedRegexExec, RegexTimeoutError } from '../../../src/runner/regex.js';

const answers = [
  { name: 'example.com.', type: 'A', ttl: 300, data: '192.0.2.1' },
  { name: 'example.com.', type: 'A', ttl: 300, data: '192.0.2.2' },
];
const values = {
  RESPONSE_DATA: 'HTTP/1.0 200 OK\r\nServer: demo 2.4\r\n',
  RESPONSE_TIME: 42,
  RESPONSE_CODE: 'NOERROR',
  TEXT_ANSWER: 'example.com. 300 IN A 192.0.2.1\nexample.com. 300 IN A 192.0.2.2',
  JSON_ANSWER: answers,
};

const a = (source: string, comparison: string, target = '', property = '', regex = ''): Assertion => ({ source, comparison, target, property, regex });

describe('assertion evaluator', () => {
  it.each([
    // source, comparison, target, property, regex, passes, actual
    ['RESPONSE_DATA', 'CONTAINS', '200 OK', '', '', true, values.RESPONSE_DATA],
    ['RESPONSE_DATA', 'NOT_CONTAINS', '500', '', '', true, values.RESPONSE_DATA],
    ['RESPONSE_DATA', 'NOT_CONTAINS', '200', '', '', false, values.RESPONSE_DATA],
    ['RESPONSE_DATA', 'EQUALS', '2.4', '', 'demo (\\d+\\.\\d+)', true, '2.4'],
    ['RESPONSE_DATA', 'EQUALS', 'Server', '', 'Server', true, 'Server'],
    ['RESPONSE_DATA', 'IS_EMPTY', '', '', 'nomatch', true, ''],
    ['RESPONSE_DATA', 'NOT_EMPTY', '', '', '', true, values.RESPONSE_DATA],
    ['RESPONSE_DATA', 'NOT_EQUALS', 'x', '', '', true, values.RESPONSE_DATA],
    ['RESPONSE_DATA', 'GREATER_THAN', '2', '', 'demo ([\\d.]+)', true, '2.4'],
    ['RESPONSE_TIME', 'LESS_THAN', '100', '', '', true, 42],
    ['RESPONSE_TIME', 'LESS_THAN', '42', '', '', false, 42],
    ['RESPONSE_TIME', 'GREATER_THAN', '41', '', '', true, 42],
    ['RESPONSE_TIME', 'EQUALS', '42.0', '', '', true, 42],
    ['RESPONSE_TIME', 'NOT_EQUALS', '42', '', '', false, 42],
    ['RESPONSE_CODE', 'EQUALS', 'NOERROR', '', '', true, 'NOERROR'],
    ['RESPONSE_CODE', 'EQUALS', 'NXDOMAIN', '', '', false, 'NOERROR'],
    ['TEXT_ANSWER', 'CONTAINS', 'IN A 192.0.2.2', '', '', true, values.TEXT_ANSWER],
    ['TEXT_ANSWER', 'EQUALS', '300', '', ' (\\d+) IN', true, '300'],
    ['JSON_ANSWER', 'EQUALS', '192.0.2.1', '$[0].data', '', true, '192.0.2.1'],
    ['JSON_ANSWER', 'EQUALS', '192.0.2.2', '[1].data', '', true, '192.0.2.2'],
    ['JSON_ANSWER', 'LESS_THAN', '301', '$[0].ttl', '', true, 300],
    ['JSON_ANSWER', 'HAS_KEY', 'ttl', '$[0]', '', true, answers[0]],
    ['JSON_ANSWER', 'NOT_HAS_KEY', 'priority', '$[0]', '', true, answers[0]],
    ['JSON_ANSWER', 'HAS_KEY', '1', '', '', true, answers],
    ['JSON_ANSWER', 'HAS_KEY', '2', '', '', false, answers],
    ['JSON_ANSWER', 'HAS_VALUE', '192.0.2.2', '$[1]', '', true, answers[1]],
    ['JSON_ANSWER', 'NOT_HAS_VALUE', '10.0.0.1', '$[1]', '', true, answers[1]],
    ['JSON_ANSWER', 'IS_NULL', '', '$[5].data', '', true, null],
    ['JSON_ANSWER', 'NOT_NULL', '', '$[0].data', '', true, '192.0.2.1'],
    ['JSON_ANSWER', 'NOT_EMPTY', '', '', '', true, answers],
    ['JSON_ANSWER', 'CONTAINS', '"type":"A"', '', '', true, answers],
    ['JSON_ANSWER', 'EQUALS', '192.0.2', '$[0].data', '^(\\d+\\.\\d+\\.\\d+)', true, '192.0.2'],
  ])('%s %s %j (property %j, regex %j) -> %s', (source, comparison, target, property, regex, passes, actual) => {
    const r = evaluateAssertion(a(source, comparison, target, property, regex), values);
    expect(r.passed).toBe(passes);
    expect(r.actual).toEqual(actual === null ? null : typeof actual === 'string' ? actual : asText(actual));
  });

  it('reads a property of JSON response data', () => {
    const r = evaluateAssertion(a('RESPONSE_DATA', 'EQUALS', 'up', '$.status'), { RESPONSE_DATA: '{"status":"up"}' });
    expect(r).toMatchObject({ passed: true, actual: 'up' });
  });

  it('fails an unknown comparison, a source the kind lacks, and a bad regex instead of passing them', () => {
    expect(evaluateAssertion(a('RESPONSE_DATA', 'MATCHES', 'x'), values).passed).toBe(false);
    expect(evaluateAssertion(a('HEADERS', 'NOT_EMPTY'), values).passed).toBe(false);
    expect(evaluateAssertion(a('RESPONSE_DATA', 'IS_EMPTY', '', '', '(['), values)).toMatchObject({ passed: false, actual: null });
  });

  it('does not compare non-numbers numerically', () => {
    expect(evaluateAssertion(a('RESPONSE_DATA', 'LESS_THAN', '5'), { RESPONSE_DATA: 'abc' }).passed).toBe(false);
    expect(evaluateAssertion(a('RESPONSE_DATA', 'GREATER_THAN', '5'), { RESPONSE_DATA: '' }).passed).toBe(false);
  });

  it('writes the decided failure message', () => {
    const r = evaluateAssertion(a('RESPONSE_CODE', 'EQUALS', 'NOERROR'), { RESPONSE_CODE: 'NXDOMAIN' });
    expect(assertionFailureMessage(r)).toBe('RESPONSE_CODE EQUALS "NOERROR" failed, actual "NXDOMAIN"');
  });
});

describe('regex of a definition', () => {
  it('stops a catastrophic pattern within its time limit: the assertion fails, the process goes on', () => {
    const body = `${'a'.repeat(40)}b`;
    const began = Date.now();
    const r = evaluateAssertion(a('RESPONSE_DATA', 'NOT_EMPTY', '', '', '(a+)+$'), { RESPONSE_DATA: body });
    expect(r.passed).toBe(false);
    expect(r.actual).toBeNull();
    // Unbounded, this match takes minutes; the limit is 100 ms (wide margin for a loaded machine).
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(() => boundedRegexExec('(a+)+$', body)).toThrow(RegexTimeoutError);
  });
  it('matches as RegExp does, with the first group when there is one', () => {
    expect(boundedRegexExec('v(\\d+)', 'version v42')).toEqual(['v42', '42']);
    expect(boundedRegexExec('v\\d+', 'version v42')).toEqual(['v42', undefined]);
    expect(boundedRegexExec('x', 'abc')).toBeNull();
    expect(() => boundedRegexExec('(', 'abc')).toThrow(SyntaxError);
  });
});

describe('JSON path', () => {
  it('parses the supported forms', () => {
    expect(parseJsonPath('$[0].data')).toEqual([0, 'data']);
    expect(parseJsonPath("$['a b'][\"c\"].d")).toEqual(['a b', 'c', 'd']);
    expect(parseJsonPath('0.data')).toEqual([0, 'data']);
    expect(parseJsonPath('$')).toEqual([]);
    expect(() => parseJsonPath('$..data')).toThrow(/unsupported JSON path/);
  });

  it('returns undefined for missing steps', () => {
    expect(readJsonPath({ a: [1] }, '$.a[3]')).toBeUndefined();
    expect(readJsonPath({ a: 1 }, '$.a.b')).toBeUndefined();
    expect(readJsonPath({ a: { b: null } }, '$.a.b')).toBeNull();
  });
});
