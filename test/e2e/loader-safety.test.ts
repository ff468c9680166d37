/**
 * What a pull request can put in a project must not leak a file nor run code: files a definition
 * names stay inside the project (absolute paths, `../`, symlinks, FIFOs, oversize files are
 * diagnostics at the field), YAML is bounded (alias bombs), --no-typescript refuses *.mac.ts files
 * before any runs, and `mac import --out` never writes through a symlink leading outside.
 * What a CLI process started with a secret in its environment can read of it (/proc/self/environ)
 * is tested here, with the built CLI spawned; every other case runs in process
 * (test/integration/loader-safety.test.ts); "no HTTP request" is proven by a TCP listener that
 * records each connection.
 */
import { describe, it } from 'vitest';
import { runMac } from '../helpers/cli.js';
import { outside, useLoaderSafety, type FileCase } from '../helpers/loader-safety.js';

const s = useLoaderSafety(runMac);

const FILE_CASES: FileCase[] = [
  { name: 'an absolute path (/proc/self/environ)', setup: async () => '/proc/self/environ', message: outside, secret: 'SAFETY_CANARY_VALUE' },
];

describe('files a definition names stay inside the project', () => {
  it.each(FILE_CASES)('scriptFile at $name: validate and plan exit 1 at the field, plan makes no HTTP request', (c) => s.checkFileCase(c));

});
