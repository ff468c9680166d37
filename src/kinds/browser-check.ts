import { checkKind } from './check-common.js';
import { SCRIPT_FIELDS, SCRIPT_WRITE_ONLY } from './multistep-check.js';

/**
 * Browser checks: a Playwright Test script using `page` plus environment variables, like
 * multi-step checks (reference POST /v1/checks/browser). `scriptPath` and `dependencies` are
 * accepted but never returned, so they are sent and not compared.
 */
export const browserCheckKind = checkKind({
  kind: 'BrowserCheck',
  segment: 'browser',
  without: ['frequencyOffset'],
  // The order of a multi-step check's fields, with sslCheckDomain after the variables.
  shape: { script: SCRIPT_FIELDS.script, environmentVariables: SCRIPT_FIELDS.environmentVariables, sslCheckDomain: { default: null, nullable: true }, scriptPath: SCRIPT_FIELDS.scriptPath, dependencies: SCRIPT_FIELDS.dependencies },
  ...SCRIPT_WRITE_ONLY,
});
