import { CHECK_ENV_VARS, checkKind } from './check-common.js';

/** The fields of a check that runs a script (multi-step and browser checks). */
export const SCRIPT_FIELDS = {
  script: { default: null, nullable: true, emptyIsNull: true },
  environmentVariables: { default: [], set: 'key', items: CHECK_ENV_VARS },
  scriptPath: { emptyIsNull: true },
  dependencies: { items: { path: {}, content: {} } },
} as const;

/** `scriptPath` and `dependencies` are accepted but never returned: sent, never compared, and said so. */
export const SCRIPT_WRITE_ONLY = {
  writeOnly: ['scriptPath', 'dependencies'],
  notes: (obj: Record<string, unknown>) =>
    ['scriptPath', 'dependencies']
      .filter((f) => obj[f] !== undefined)
      .map((f) => `${f} is write-only (the API never returns it): sent on create and update, not compared`),
};

/**
 * Multi-step checks: a script plus environment variables. `scriptPath` and `dependencies` are
 * accepted but never returned (api-decisions §3.2), so they are sent and not compared.
 */
export const multiStepCheckKind = checkKind({
  kind: 'MultiStepCheck',
  segment: 'multistep',
  without: ['frequencyOffset'],
  shape: SCRIPT_FIELDS,
  ...SCRIPT_WRITE_ONLY,
});
