import type { PlannedChange } from '../../../src/plan/types.js';

/** A planned change with the fields a test does not care about filled in. */
export function change(partial: Partial<PlannedChange> & Pick<PlannedChange, 'kind' | 'id'>): PlannedChange {
  return { action: 'create', patch: [], dependsOn: [], desired: {}, ...partial };
}
