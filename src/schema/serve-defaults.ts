/**
 * What the engine and `mac serve` agree on without being told: the header that carries the
 * account id, and the development key the service accepts when started without --api-key (and
 * that the engine sends to a local service when given none); and the service's defaults that
 * `mac serve --help` shows, here so that the help is written without loading the service.
 */

/** The header that carries the account id, unless `mac serve --account-header` names another. */
export const DEFAULT_ACCOUNT_HEADER = 'x-service-account';
/** The key `mac serve` accepts when started without --api-key. */
export const DEV_API_KEY = 'mac-dev-key';
/** The account of the dev key. */
export const DEV_ACCOUNT_ID = 'dev';

/** Days run data is kept without --retention-days. */
export const DEFAULT_RETENTION_DAYS = 30;
/** The From of every mail without --mail-from. */
export const DEFAULT_MAIL_FROM = 'mac serve <mac@localhost>';
/** Base URL of PagerDuty's Events API v2 without --pagerduty-url. */
export const DEFAULT_PAGERDUTY_URL = 'https://events.pagerduty.com';
/** Base URLs of Opsgenie's Alert API by region without --opsgenie-url. */
export const DEFAULT_OPSGENIE_URL = { US: 'https://api.opsgenie.com', EU: 'https://api.eu.opsgenie.com' } as const;
/** Base URL of Twilio's REST API without --twilio-url. */
export const DEFAULT_TWILIO_URL = 'https://api.twilio.com';
/** How long one delivery attempt may take without `--alert-timeout`. */
export const DEFAULT_ALERT_TIMEOUT_MS = 10_000;
