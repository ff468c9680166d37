/**
 * What the alert senders share: the message every channel renders, the channel as stored, the
 * outcome of one delivery attempt, and the settings of the senders (`mac serve` flags).
 */

/** The alert types a channel receives. */
export type AlertMessageType = 'ALERT_FAILURE' | 'ALERT_RECOVERY' | 'ALERT_DEGRADED' | 'ALERT_SSL_EXPIRY';

/** One alert, as every channel renders it. */
export interface AlertMessage {
  alertType: AlertMessageType;
  /**
   * One id per check alert: a failure, its reminders and its recovery share it (PagerDuty's
   * `dedup_key`, Opsgenie's `alias`), so a repeated or retried event never pages twice. An
   * ALERT_SSL_EXPIRY needs an id of its own (per certificate): sharing a failure's would fold it
   * into that incident, and the check's recovery would resolve it.
   */
  checkAlertId: string;
  checkId: string;
  checkName: string;
  checkType: string;
  runLocation: string;
  responseTime: number;
  startedAt: string;
  /** Why: the run's first error or failed assertion; null on recovery. */
  errorMessage: string | null;
  checkResultId: string | null;
  /** The run's public page when the service knows its public URL (`--public-url`), else null. */
  runUrl: string | null;
  /** True for a repeated failure alert (reminder). */
  reminder?: boolean;
  /** ALERT_SSL_EXPIRY: days left before the certificate expires, and when it does. */
  sslDaysRemaining?: number;
  sslExpiresAt?: string;
}

/** An alert channel as stored (api-decisions §3.5). */
export interface ChannelRecord {
  id: number;
  type: string;
  config: Record<string, unknown>;
  sendFailure?: boolean;
  sendRecovery?: boolean;
  sendDegraded?: boolean;
  sslExpiry?: boolean;
  sslExpiryThreshold?: number;
}

/** One mail (alert mails and status-page subscriber mails). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe, ...). */
  headers?: Record<string, string>;
}

/**
 * How one delivery attempt ended. `result` / `error` become the notification's
 * `notificationResult`: the receiver's answer or what went wrong, bounded, never a credential.
 */
export type SendOutcome =
  | { ok: true; result: string }
  | {
      ok: false;
      error: string;
      /** No later attempt can succeed (no provider configured, an invalid address): stop retrying. */
      permanent?: boolean;
      /** The receiver asked to slow down (HTTP 429); `retryAfterMs` from its Retry-After when given. */
      rateLimited?: boolean;
      retryAfterMs?: number;
    };

/** The phone provider of SMS and CALL channels (`mac serve --phone-provider twilio ...`). */
export interface PhoneSettings {
  provider: 'twilio';
  /** The provider's API base URL (Twilio: `https://api.twilio.com`). */
  url: string;
  /** Twilio's account SID: the user of its basic auth and part of every path. */
  accountSid: string;
  /** Twilio's auth token (`--twilio-token-file`): a credential, never shown. */
  authToken: string;
  /** The sender number (E.164) messages and calls come from. */
  from: string;
}

/** How the senders reach the receivers: the `mac serve` alert flags, defaults filled. */
export interface SenderSettings {
  /** `--smtp`: `smtp://` or `smtps://` URL, credentials optionally in it; no mail without it. */
  smtpUrl?: string;
  /** `--smtp-password-file`'s content: replaces a password in the URL. A credential, never shown. */
  smtpPassword?: string;
  /** `--smtp-ca`'s PEM: certificates trusted for the SMTP server's TLS besides the system's (an internal relay's own CA). */
  smtpCa?: string;
  /** `--mail-from`: the From of every mail. */
  mailFrom: string;
  /** `--public-url`: where people reach the service (links in alerts and mails). */
  publicUrl?: string;
  /** PagerDuty's Events API base URL (`--pagerduty-url`). */
  pagerdutyUrl: string;
  /** Opsgenie's API base URL per region (`--opsgenie-url` sets both). */
  opsgenieUrl: { US: string; EU: string };
  /** The provider of SMS and CALL channels; none: they fail, saying so. */
  phone?: PhoneSettings;
  /** How long one delivery attempt may take: an HTTP request and its answer, each SMTP phase. */
  timeoutMs: number;
  /**
   * The undici dispatcher every HTTP request goes through (the network policy); undici's global
   * one when not given.
   */
  dispatcher?: import('undici').Dispatcher;
  /** Clock for Retry-After dates (ms since epoch). */
  now?: () => number;
}
