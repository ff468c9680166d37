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
   * `dedup_key`, Opsgenie's `alias`), so a repeated or retried event never pages twice.
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

/** What delivers one attempt per channel type (alerts/senders.ts); never throws. */
export interface Senders {
  send(channel: ChannelRecord, message: AlertMessage): Promise<SendOutcome>;
  sendMail(mail: MailMessage): Promise<SendOutcome>;
  close(): void;
}
