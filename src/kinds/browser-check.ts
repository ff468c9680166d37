import { CHECK_ENV_VARS, checkKind } from './check-common.js';

/**
 * Browser checks: a Playwright Test script using `page` plus environment variables, like
 * multi-step checks (reference POST /v1/checks/browser). `scriptPath` and `dependencies` are
 * accepted but never returned, so they are sent and not compared.
 */
export const browserCheck = checkKind({
  kind: 'BrowserCheck',
  segment: 'browser',
  without: ['frequencyOffset'],
  shape: {
    script: { default: null, nullable: true, emptyIsNull: true },
    environmentVariables: { default: [], set: 'key', items: CHECK_ENV_VARS },
    sslCheckDomain: { default: null, nullable: true },
    scriptPath: { emptyIsNull: true },
    dependencies: { items: { path: {}, content: {} } },
  },
  writeOnly: ['scriptPath', 'dependencies'],
  notes: (obj) =>
    ['scriptPath', 'dependencies']
      .filter((f) => obj[f] !== undefined)
      .map((f) => `${f} is write-only (the API never returns it): sent on create and update, not compared`),
});
