/**
 * Error-group life cycle (decisions §5.4): occurrences create or refresh a group; PATCH moves
 * its archive flags. Pure functions over StoredErrorGroup; the store persists what they return.
 */
import type { StoredErrorGroup } from './types.js';

/** The error-group body as the API returns it (spec §2.12): the stored group without its internal flags. */
export type ErrorGroupView = Omit<StoredErrorGroup, 'archived' | 'archivedForever'> & { archivedUntilNextEvent: boolean };

/** Projects a stored group on the API shape; the forever flag stays internal. */
export function errorGroupView(g: StoredErrorGroup): ErrorGroupView {
  const { archived, archivedForever: _forever, ...rest } = g;
  return { ...rest, archivedUntilNextEvent: archived };
}

/** A new occurrence of a known group: `lastSeen` moves on and, unless archived forever, it unarchives. */
export function recordOccurrence(g: StoredErrorGroup, startedAt: string): StoredErrorGroup {
  // Results may arrive out of order across locations; lastSeen never moves back.
  const lastSeen = Date.parse(startedAt) > Date.parse(g.lastSeen) ? startedAt : g.lastSeen;
  const firstSeen = Date.parse(startedAt) < Date.parse(g.firstSeen) ? startedAt : g.firstSeen;
  return { ...g, firstSeen, lastSeen, archived: g.archivedForever ? g.archived : false };
}

/** Body of PATCH /v1/error-groups/{id}. */
export interface ArchivePatch {
  archiveForEver?: boolean;
  archivedUntilNextEvent?: boolean;
}

/** The one contradictory combination, refused with 400 before any change. */
export function isContradictoryPatch(p: ArchivePatch): boolean {
  return p.archiveForEver === true && p.archivedUntilNextEvent === false;
}

/** Applies a PATCH body; call only after isContradictoryPatch said no. */
export function applyArchivePatch(g: StoredErrorGroup, p: ArchivePatch): StoredErrorGroup {
  let { archived, archivedForever } = g;
  if (p.archivedUntilNextEvent === true) archived = true;
  if (p.archivedUntilNextEvent === false) {
    archived = false;
    archivedForever = false;
  }
  if (p.archiveForEver === true) {
    archived = true;
    archivedForever = true;
  }
  if (p.archiveForEver === false) archivedForever = false;
  return { ...g, archived, archivedForever };
}

/** Orders groups for lists: newest `lastSeen` first, ties by id for a stable page order. */
export function compareByLastSeenDesc(a: StoredErrorGroup, b: StoredErrorGroup): number {
  return Date.parse(b.lastSeen) - Date.parse(a.lastSeen) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
