import { CHECK_ENV_VARS, checkKind } from './check-common.js';

/**
 * Multi-step checks: a script plus environment variables. `scriptPath` and `dependencies` are
 * accepted but never returned (api-decisions §3.2), so they are sent and not compared.
 */
export const multiStepCheck = checkKind({
  kind: 'MultiStepCheck',
  segment: 'multistep',
  without: ['frequencyOffset'],
  shape: {
    script: { default: null, nullable: true, emptyIsNull: true },
    environmentVariables: { default: [], set: 'key', items: CHECK_ENV_VARS },
    scriptPath: { emptyIsNull: true },
    dependencies: { items: { path: {}, content: {} } },
  },
  writeOnly: ['scriptPath', 'dependencies'],
  notes: (obj) =>
    ['scriptPath', 'dependencies']
      .filter((f) => obj[f] !== undefined)
      .map((f) => `${f} is write-only (the API never returns it): sent on create and update, not compared`),
});
