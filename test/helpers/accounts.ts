import type { Served } from './serve.js';

/**
 * Accounts of one `mac serve` shared by a test file: each test takes an account of its own (its
 * own API key), so that what one test creates, locks or deletes is not in another's account, and
 * the file's tests can run at once against one service.
 *
 *   const accounts = serviceAccounts('lock', 6);
 *   beforeAll(async () => (service = await startServeIn(['--no-runs', ...accounts.args])));
 *   it.concurrent('...', async () => { const s = accounts.next(service); ... });
 */
export function serviceAccounts(prefix: string, count: number): { args: string[]; next(service: Served): Served } {
  let used = 0;
  return {
    /** The service's flags: `--api-key PREFIX-key-I --account PREFIX-I` for each account. */
    args: Array.from({ length: count }, (_, i) => ['--api-key', `${prefix}-key-${i}`, '--account', `${prefix}-${i}`]).flat(),
    /** The service as the next unused account's key sees it: a fresh, empty account. */
    next(service: Served): Served {
      if (used >= count) throw new Error(`more than ${count} accounts of "${prefix}": raise the count`);
      const i = used++;
      return { ...service, apiKey: `${prefix}-key-${i}`, accountId: `${prefix}-${i}` };
    },
  };
}
