/**
 * Help texts the CLI needs at every start (main.ts) and `mac serve` needs: apart from options.ts,
 * whose imports (the API client and undici, the project loader and yaml) a service does not use.
 */
import { DEFAULT_API_URL } from '../config/connection.js';

/** The hint of a usage error of `mac COMMAND`. */
export function usageHint(command: string): string {
  return `run "mac ${command} --help" for usage`;
}

/** What the top-level `mac --help` says after the commands: the environment and where the docs are. */
export function environmentHelp(docsUrl: string): string {
  return `
Environment:
  MAC_API_URL         monitoring API base URL (default: ${DEFAULT_API_URL}, where mac serve listens)
  MAC_API_KEY         API key (default: the dev key of mac serve, at the default URL only)
  MAC_ACCOUNT_ID      account id, sent in the account header
  MAC_ACCOUNT_HEADER  header the account id is sent in (default: x-service-account;
                      the reference API names it x-checkly-account)
  MAC_RATE_LIMIT      at most N requests per SECONDS, as N/SECONDS (default: 600/60)
  NO_COLOR            no colour in the output

Docs: ${docsUrl}`;
}
