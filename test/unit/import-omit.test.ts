import { describe, expect, it } from 'vitest';
import { jsonEqual, omitDefaults } from '../../src/import/omit.js';

const server = {
  activated: true,
  locations: [],
  frequency: 10,
  alertSettings: { escalationType: 'RUN_BASED', reminders: { amount: 0, interval: 5 } },
  request: { ipFamily: 'IPv4', assertions: [] },
};

describe('jsonEqual', () => {
  it('ignores key order but not array order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
  });
});

describe('omitDefaults', () => {
  it('leaves out fields equal to the server defaults, recursively', () => {
    const body = {
      name: 'db',
      activated: true,
      frequency: 5,
      alertSettings: { escalationType: 'RUN_BASED', reminders: { amount: 2, interval: 5 } },
      request: { hostname: 'db', port: 5432, ipFamily: 'IPv4', assertions: [] },
    };
    expect(omitDefaults(body, server)).toEqual({
      name: 'db',
      frequency: 5,
      alertSettings: { reminders: { amount: 2 } },
      request: { hostname: 'db', port: 5432 },
    });
  });
  it('drops an object whose every field is a default', () => {
    const body = { alertSettings: { escalationType: 'RUN_BASED', reminders: { amount: 0, interval: 5 } } };
    expect(omitDefaults(body, server)).toEqual({});
  });
  it('writes a field that equals the server default when the project default differs', () => {
    const body = { locations: [], frequency: 10 };
    expect(omitDefaults(body, server, { locations: ['eu-west-1'] })).toEqual({ locations: [] });
  });
  it('leaves out a field equal to the project default even when the server default differs', () => {
    const body = { locations: ['eu-west-1'], frequency: 1 };
    expect(omitDefaults(body, server, { locations: ['eu-west-1'], frequency: 1 })).toEqual({});
  });
  it('keeps null where the default is a value', () => {
    expect(omitDefaults({ frequency: null }, server)).toEqual({ frequency: null });
  });
});
