import { DEFAULT_ALERT_TIMEOUT_MS, DEFAULT_MAIL_FROM, DEFAULT_OPSGENIE_URL, DEFAULT_PAGERDUTY_URL } from '../../schema/serve-defaults.js';
import type { SenderSettings } from './types.js';

/**
 * The senders' settings: defaults (the providers' public endpoints) and the parsers of the
 * `mac serve` alert flags. Parsers throw an Error naming the flag and never quote a credential.
 */

// The defaults (DEFAULT_PAGERDUTY_URL, ...) are in schema/serve-defaults.ts, where `mac serve --help` reads them.

/** Fills the defaults of the settings not given. */
export function resolveSenderSettings(partial: Partial<SenderSettings> = {}): SenderSettings {
  return {
    ...partial,
    mailFrom: partial.mailFrom ?? DEFAULT_MAIL_FROM,
    pagerdutyUrl: partial.pagerdutyUrl ?? DEFAULT_PAGERDUTY_URL,
    opsgenieUrl: partial.opsgenieUrl ?? { ...DEFAULT_OPSGENIE_URL },
    timeoutMs: partial.timeoutMs ?? DEFAULT_ALERT_TIMEOUT_MS,
  };
}

/** `smtp://user:secret@host` -> `smtp://user:***@host` (for messages and the start line). */
export function redactSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Parses `--smtp`: `smtp://` or `smtps://`, a host, an optional port and user info, nothing else. */
export function parseSmtpUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`--smtp must be a URL such as smtp://USER:PASSWORD@HOST:587 or smtps://HOST:465, not "${redactSmtpUrl(value)}"`);
  }
  const shown = redactSmtpUrl(value);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`--smtp must start with smtp:// (STARTTLS when the server offers it) or smtps:// (TLS), not "${shown}"`);
  if (!u.hostname) throw new Error(`--smtp names no host: "${shown}"`);
  if ((u.pathname !== '' && u.pathname !== '/') || u.search || u.hash) throw new Error(`--smtp takes no path, query or fragment: "${shown}"`);
  if (u.password && !u.username) throw new Error(`--smtp has a password but no user: "${shown}"`);
  return value;
}

/**
 * Parses `--mail-from`: `address@host` or `Name <address@host>`, on one line. The address is
 * what SMTP servers check against the account; the name is what people see.
 */
export function parseMailFrom(value: string): string {
  const v = value.trim();
  const address = /^[^\s@<>(),;:"\\[\]]{1,64}@[^\s@<>(),;:"\\[\]]{1,253}$/;
  const m = /^([^<>\r\n]*)<([^<>]+)>$/.exec(v);
  if (/[\r\n]/.test(v) || !(m ? address.test(m[2].trim()) : address.test(v))) {
    throw new Error(`--mail-from must be an address (alerts@example.com) or Name <alerts@example.com>, not "${value.slice(0, 200)}"`);
  }
  return v;
}

/**
 * Parses a base URL flag (`--public-url`, `--pagerduty-url`, `--opsgenie-url`, `--twilio-url`):
 * http or https, no credentials, query or fragment; the trailing slash dropped so that paths join.
 */
export function parseBaseUrl(flag: string, value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`${flag} must be an http:// or https:// URL, not "${value.slice(0, 200)}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${flag} must be an http:// or https:// URL, not "${u.protocol}..."`);
  if (u.username || u.password) throw new Error(`${flag} must not hold credentials`);
  if (u.search || u.hash) throw new Error(`${flag} takes no query or fragment: "${u.origin}${u.pathname}..."`);
  return u.toString().replace(/\/+$/, '');
}

/** Parses an E.164 phone number (`--phone-from`). */
export function parsePhoneNumber(flag: string, value: string): string {
  const v = value.replace(/[\s()-]/g, '');
  if (!/^\+[1-9]\d{6,14}$/.test(v)) throw new Error(`${flag} must be an E.164 number such as +15551234567, not "${value.slice(0, 40)}"`);
  return v;
}

/** Parses `--twilio-account-sid`: Twilio's account SIDs are AC and 32 hexadecimal digits. */
export function parseTwilioSid(value: string): string {
  if (!/^AC[0-9a-fA-F]{32}$/.test(value)) throw new Error('--twilio-account-sid must be AC followed by 32 hexadecimal digits');
  return value;
}

/** Parses `--smtp-ca`'s file: one or more PEM certificates. */
export function parseCaFile(flag: string, text: string): string {
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(text)) throw new Error(`${flag}: no PEM certificate (-----BEGIN CERTIFICATE-----) in the file`);
  return text;
}

/** A secret read from a file (`--smtp-password-file`, `--twilio-token-file`): the content without its final newline. */
export function secretOfFile(flag: string, text: string): string {
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') throw new Error(`${flag}: the file is empty`);
  if (/[\r\n]/.test(secret)) throw new Error(`${flag}: the file holds more than one line`);
  return secret;
}
