import { describe, expect, it } from 'vitest';
import { KIND_SPECS } from '../../src/kinds/index.js';
import { canonicalJson, normalizeShape } from '../../src/kinds/shape.js';
import { omitRedundant } from '../../src/import/omit.js';

const tcp = KIND_SPECS.TcpCheck;
const live = (body: Record<string, unknown>) => normalizeShape(body, tcp.shapeOf(body)).value;
const shape = tcp.shapeOf({});

describe('omitRedundant', () => {
  it('leaves a TCP check with defaults only its own fields', () => {
    const body = live({ name: 'db', request: { hostname: 'db', port: 5432 } });
    expect(omitRedundant(body, shape)).toEqual({ name: 'db', request: { hostname: 'db', port: 5432 } });
  });
  it('keeps non-default nested fields only, and the result normalizes back to the same object', () => {
    const body = live({
      name: 'db',
      frequency: 5,
      alertSettings: { reminders: { amount: 2 } },
      request: { hostname: 'db', port: 5432, assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'ok' }] },
    });
    const out = omitRedundant(body, shape);
    expect(out).toEqual({
      name: 'db',
      frequency: 5,
      alertSettings: { reminders: { amount: 2 } },
      request: { hostname: 'db', port: 5432, assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'ok' }] },
    });
    expect(canonicalJson(normalizeShape(out, shape).value)).toBe(canonicalJson(body));
  });
  it('writes a field equal to the server default when the project default differs', () => {
    const body = live({ name: 'db', request: { hostname: 'db', port: 1 }, locations: [] });
    expect(omitRedundant(body, shape, { locations: ['eu-west-1'] })).toMatchObject({ locations: [] });
  });
  it('leaves out a field equal to the project default even when the server default differs', () => {
    const body = live({ name: 'db', request: { hostname: 'db', port: 1 }, locations: ['eu-west-1'], frequency: 1 });
    const out = omitRedundant(body, shape, { locations: ['eu-west-1'], frequency: 1 });
    expect(out).not.toHaveProperty('locations');
    expect(out).not.toHaveProperty('frequency');
  });
  it('keeps an explicit null where the server default is a value', () => {
    const body = live({ name: 'db', request: { hostname: 'db', port: 1 }, degradedResponseTime: null });
    expect(omitRedundant(body, shape)).toHaveProperty('degradedResponseTime', null);
  });
  it('keeps a retry strategy whose fields are defaults but whose presence is not', () => {
    const body = live({ name: 'db', request: { hostname: 'db', port: 1 }, retryStrategy: { type: 'FIXED' } });
    expect(omitRedundant(body, shape)).toHaveProperty('retryStrategy', { type: 'FIXED' });
  });
});
