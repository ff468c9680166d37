import { bwrapAvailable } from '../../src/runner/sandbox.js';

/**
 * Tests of the script sandbox need bubblewrap: where it is missing they fail (never skip) and
 * say how to install it.
 */
export function requireBwrap(): string {
  const available = bwrapAvailable();
  if (!available.ok) throw new Error(`the script sandbox is not available (${available.reason}): apt-get install -y bubblewrap`);
  return available.bwrap;
}
