/**
 * What the engine and `mac serve` agree on without being told: the header that carries the
 * account id, and the development key the service accepts when started without --api-key (and
 * that the engine sends to a local service when given none).
 */

/** The header that carries the account id, unless `mac serve --account-header` names another. */
export const DEFAULT_ACCOUNT_HEADER = 'x-service-account';
/** The key `mac serve` accepts when started without --api-key. */
export const DEV_API_KEY = 'mac-dev-key';
/** The account of the dev key. */
export const DEV_ACCOUNT_ID = 'dev';
