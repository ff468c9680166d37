import { describe, expect, it } from 'vitest';
import { allLocations, attemptLocation, firstRunDelayMs, nextDueMs, periodMs, sessionLocations } from '../../../src/server/runs/schedule.js';
import { isTargeted } from '../../../src/server/runs/target.js';

describe('scheduling', () => {
  it('runs every frequency minutes, or every frequencyOffset seconds at frequency 0, divided by the time scale', () => {
    expect(periodMs({ frequency: 10 }, 1)).toBe(600_000);
    expect(periodMs({}, 1)).toBe(600_000);
    expect(periodMs({ frequency: 0, frequencyOffset: 20 }, 1)).toBe(20_000);
    expect(periodMs({ frequency: 1 }, 60)).toBe(1000);
    expect(periodMs({ frequency: 0, frequencyOffset: 10 }, 100)).toBe(100);
  });

  it('offsets the first run by frequencyOffset seconds, except for sub-minute checks', () => {
    expect(firstRunDelayMs({ frequency: 10, frequencyOffset: 30 }, 1)).toBe(30_000);
    expect(firstRunDelayMs({ frequency: 10, frequencyOffset: 30 }, 10)).toBe(3_000);
    expect(firstRunDelayMs({ frequency: 10 }, 1)).toBe(0);
    expect(firstRunDelayMs({ frequency: 0, frequencyOffset: 30 }, 1)).toBe(0);
  });

  it('keeps the cadence and skips runs missed while busy', () => {
    expect(nextDueMs(1000, 500, 1200)).toBe(1500);
    expect(nextDueMs(1000, 500, 2700)).toBe(3000);
    expect(nextDueMs(1000, 500, 3000)).toBe(3500);
  });

  it('runs in every location at once with runParallel, else rotates one per session; local when none', () => {
    const check = { locations: ['eu-west-1', 'us-east-1'], privateLocations: ['office'] };
    expect(allLocations(check)).toEqual(['eu-west-1', 'us-east-1', 'office']);
    expect(sessionLocations({ ...check, runParallel: true }, 5)).toEqual(['eu-west-1', 'us-east-1', 'office']);
    expect([0, 1, 2, 3].map((n) => sessionLocations(check, n)[0])).toEqual(['eu-west-1', 'us-east-1', 'office', 'eu-west-1']);
    expect(sessionLocations({ locations: [], privateLocations: null }, 0)).toEqual(['local']);
  });

  it('moves retries to the next location when sameRegion is false', () => {
    const check = { locations: ['a', 'b', 'c'] };
    expect(attemptLocation(check, 'b', 1, true)).toBe('b');
    expect(attemptLocation(check, 'b', 1, false)).toBe('c');
    expect(attemptLocation(check, 'b', 2, false)).toBe('a');
  });
});

describe('trigger targets', () => {
  const check = { id: 'c1', tags: ['prod', 'api'] };
  it('selects everything without a target', () => {
    expect(isTargeted(check, undefined)).toBe(true);
    expect(isTargeted(check, {})).toBe(true);
  });
  it('selects by id', () => {
    expect(isTargeted(check, { checkId: ['c1'] })).toBe(true);
    expect(isTargeted(check, { checkId: ['c2'] })).toBe(false);
  });
  it('selects by an OR of AND tag groups, with negation', () => {
    expect(isTargeted(check, { matchTags: [['prod', 'api']] })).toBe(true);
    expect(isTargeted(check, { matchTags: [['prod', 'web']] })).toBe(false);
    expect(isTargeted(check, { matchTags: [['prod', 'web'], ['api']] })).toBe(true);
    expect(isTargeted(check, { matchTags: [['prod', '!api']] })).toBe(false);
    expect(isTargeted(check, { matchTags: [['!staging']] })).toBe(true);
    expect(isTargeted(check, { checkId: ['zz'], matchTags: [['api']] })).toBe(true);
  });
});
