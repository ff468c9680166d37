import { describe, expect, it } from 'vitest';
import { applyArchivePatch, compareByLastSeenDesc, errorGroupView, isContradictoryPatch, recordOccurrence } from '../../src/server/rundata/error-groups.js';
import type { StoredErrorGroup } from '../../src/server/rundata/types.js';

const group = (over: Partial<StoredErrorGroup> = {}): StoredErrorGroup => ({
  id: 'g1',
  checkId: 'c1',
  errorHash: 'h',
  rawErrorMessage: 'connect ECONNREFUSED 10.0.0.7:5432',
  cleanedErrorMessage: 'connect ECONNREFUSED <ip>',
  firstSeen: '2025-01-01T00:00:00.000Z',
  lastSeen: '2025-01-02T00:00:00.000Z',
  archived: false,
  archivedForever: false,
  ...over,
});

describe('archive PATCH', () => {
  it('archivedUntilNextEvent true archives, false unarchives and clears the forever flag', () => {
    expect(applyArchivePatch(group(), { archivedUntilNextEvent: true })).toMatchObject({ archived: true, archivedForever: false });
    expect(applyArchivePatch(group({ archived: true, archivedForever: true }), { archivedUntilNextEvent: false })).toMatchObject({ archived: false, archivedForever: false });
  });
  it('archiveForEver true archives for ever, false clears the flag only', () => {
    expect(applyArchivePatch(group(), { archiveForEver: true })).toMatchObject({ archived: true, archivedForever: true });
    expect(applyArchivePatch(group({ archived: true, archivedForever: true }), { archiveForEver: false })).toMatchObject({ archived: true, archivedForever: false });
  });
  it('{} changes nothing; both true archive for ever', () => {
    const g = group({ archived: true });
    expect(applyArchivePatch(g, {})).toEqual(g);
    expect(applyArchivePatch(group(), { archiveForEver: true, archivedUntilNextEvent: true })).toMatchObject({ archived: true, archivedForever: true });
  });
  it('flags the one contradictory combination', () => {
    expect(isContradictoryPatch({ archiveForEver: true, archivedUntilNextEvent: false })).toBe(true);
    expect(isContradictoryPatch({ archiveForEver: false, archivedUntilNextEvent: true })).toBe(false);
    expect(isContradictoryPatch({})).toBe(false);
  });
});

describe('occurrences', () => {
  it('moves lastSeen on and unarchives', () => {
    const g = recordOccurrence(group({ archived: true }), '2025-01-03T00:00:00.000Z');
    expect(g).toMatchObject({ lastSeen: '2025-01-03T00:00:00.000Z', firstSeen: '2025-01-01T00:00:00.000Z', archived: false });
  });
  it('stays archived when archived for ever', () => {
    expect(recordOccurrence(group({ archived: true, archivedForever: true }), '2025-01-03T00:00:00.000Z').archived).toBe(true);
  });
  it('keeps the raw message of the first occurrence and never moves lastSeen back', () => {
    const g = recordOccurrence(group(), '2025-01-01T12:00:00.000Z');
    expect(g.lastSeen).toBe('2025-01-02T00:00:00.000Z');
    expect(g.rawErrorMessage).toBe('connect ECONNREFUSED 10.0.0.7:5432');
  });
});

describe('views and order', () => {
  it('reports archived as archivedUntilNextEvent and hides the forever flag', () => {
    expect(errorGroupView(group({ archived: true, archivedForever: true }))).toEqual({
      id: 'g1', checkId: 'c1', errorHash: 'h', rawErrorMessage: 'connect ECONNREFUSED 10.0.0.7:5432',
      cleanedErrorMessage: 'connect ECONNREFUSED <ip>', firstSeen: '2025-01-01T00:00:00.000Z', lastSeen: '2025-01-02T00:00:00.000Z', archivedUntilNextEvent: true,
    });
  });
  it('orders newest lastSeen first', () => {
    const gs = [group({ id: 'a' }), group({ id: 'b', lastSeen: '2025-02-01T00:00:00.000Z' }), group({ id: 'c', lastSeen: '2024-12-01T00:00:00.000Z' })];
    expect(gs.sort(compareByLastSeenDesc).map((g) => g.id)).toEqual(['b', 'a', 'c']);
  });
});
