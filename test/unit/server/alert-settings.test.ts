import { describe, expect, it } from 'vitest';
import { MAX_OUTCOME_CHARS, MAX_RETRY_AFTER_MS, parseRetryAfter, scrub, settle } from '../../../src/server/alerts/outcome.js';
import { alertMail, renderTemplate } from '../../../src/server/alerts/render.js';
import {
  parseBaseUrl,
  parseCaFile,
  parseMailFrom,
  parsePhoneNumber,
  parseSmtpUrl,
  parseTwilioSid,
  redactSmtpUrl,
  resolveSenderSettings,
  secretOfFile,
} from '../../../src/server/alerts/settings.js';
import { smtpOptions } from '../../../src/server/alerts/mail.js';

// The pure parts of the senders: outcome cleaning, Retry-After, the flag parsers, rendering.

describe('outcomes', () => {
  it('replaces a secret and its URL-encoded forms, and a secret cut at the end of a bounded read', () => {
    expect(scrub('key=a b/c+d&x', ['a b/c+d'])).toBe('key=***&x');
    expect(scrub('key=a%20b%2Fc%2Bd', ['a b/c+d'])).toBe('key=***');
    expect(scrub('key=a+b%2Fc%2Bd', ['a b/c+d'])).toBe('key=***');
    expect(scrub('token starts R0UT1N', ['R0UT1NGkey'])).toBe('token starts ***');
    // Too short to be a secret worth hiding (it would hide the answer instead).
    expect(scrub('HTTP 200 ok', ['ok'])).toBe('HTTP 200 ok');
  });

  it('puts an outcome on one line and bounds it', () => {
    expect(settle('a\r\nb\u001b[31m  c', [])).toBe('a b [31m c');
    const long = settle('x'.repeat(10_000), []);
    expect(long).toHaveLength(MAX_OUTCOME_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('reads Retry-After as seconds or an HTTP date, bounded, and ignores what it cannot read', () => {
    const now = Date.parse('2026-11-27T19:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 19:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 18:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('99999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('flags', () => {
  it('accepts smtp:// and smtps:// URLs and names the flag without the password otherwise', () => {
    expect(parseSmtpUrl('smtp://u:p@mail.example.com:587')).toBe('smtp://u:p@mail.example.com:587');
    expect(parseSmtpUrl('smtps://mail.example.com')).toBe('smtps://mail.example.com');
    for (const bad of ['http://u:hunter22@mail.example.com', 'smtp://u:hunter22@mail.example.com/x', 'smtp://u:hunter22@mail.example.com?x=1', 'smtp://:hunter22@mail.example.com']) {
      let message = '';
      try {
        parseSmtpUrl(bad);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^--smtp /);
      expect(message).not.toContain('hunter22');
    }
    expect(redactSmtpUrl('smtp://u:hunter22@h:25')).toBe('smtp://u:***@h:25');
  });

  it('turns the SMTP URL into nodemailer options: ports by scheme, user info decoded, the password file first', () => {
    expect(smtpOptions({ smtpUrl: 'smtp://mail.example.com', timeoutMs: 5000 })).toMatchObject({ host: 'mail.example.com', port: 587, secure: false, auth: undefined, greetingTimeout: 5000 });
    expect(smtpOptions({ smtpUrl: 'smtps://a%40b:p%2Fw@mail.example.com', timeoutMs: 5000 })).toMatchObject({ port: 465, secure: true, auth: { user: 'a@b', pass: 'p/w' } });
    expect(smtpOptions({ smtpUrl: 'smtp://a@[::1]:2525', smtpPassword: 'file-pw', timeoutMs: 5000 })).toMatchObject({ host: '::1', port: 2525, auth: { user: 'a', pass: 'file-pw' } });
  });

  it('checks --mail-from, base URLs, phone numbers, Twilio SIDs and secret files', () => {
    expect(parseMailFrom('alerts@example.com')).toBe('alerts@example.com');
    expect(parseMailFrom('Monitoring <alerts@example.com>')).toBe('Monitoring <alerts@example.com>');
    expect(() => parseMailFrom('alerts')).toThrow(/--mail-from/);
    expect(() => parseMailFrom('a@example.com\r\nBcc: x@example.com')).toThrow(/--mail-from/);
    expect(parseBaseUrl('--pagerduty-url', 'http://127.0.0.1:9/pd/')).toBe('http://127.0.0.1:9/pd');
    expect(() => parseBaseUrl('--opsgenie-url', 'ftp://x')).toThrow(/^--opsgenie-url /);
    expect(() => parseBaseUrl('--public-url', 'https://u:p@x')).toThrow(/^--public-url must not hold credentials/);
    expect(parsePhoneNumber('--phone-from', '+1 (555) 000-1111')).toBe('+15550001111');
    expect(() => parsePhoneNumber('--phone-from', '5550001111')).toThrow(/E\.164/);
    expect(() => parseTwilioSid('AC123')).toThrow(/--twilio-account-sid/);
    expect(secretOfFile('--twilio-token-file t', 'abc\n')).toBe('abc');
    expect(() => secretOfFile('--smtp-password-file p', '\n')).toThrow('--smtp-password-file p: the file is empty');
    expect(() => secretOfFile('--smtp-password-file p', 'a\nb\n')).toThrow(/more than one line/);
    expect(() => parseCaFile('--smtp-ca ca.pem', 'not a certificate')).toThrow('--smtp-ca ca.pem: no PEM certificate');
  });

  it("defaults to the providers' public endpoints and a 10 s attempt", () => {
    expect(resolveSenderSettings()).toMatchObject({
      pagerdutyUrl: 'https://events.pagerduty.com',
      opsgenieUrl: { US: 'https://api.opsgenie.com', EU: 'https://api.eu.opsgenie.com' },
      timeoutMs: 10_000,
    });
  });
});

describe('rendering', () => {
  const m = {
    alertType: 'ALERT_SSL_EXPIRY' as const,
    checkAlertId: 'a',
    checkId: 'c',
    checkName: 'shop\r\nBcc: x@example.com',
    checkType: 'URL',
    runLocation: 'local',
    responseTime: 0,
    startedAt: '2026-11-27T19:00:00.000Z',
    errorMessage: null,
    checkResultId: null,
    runUrl: 'javascript:alert(1)',
    sslDaysRemaining: 1,
    sslExpiresAt: '2026-11-28T00:00:00.000Z',
  };

  it('keeps a subject on one line, says when a certificate expires, and links only to http(s)', () => {
    const mail = alertMail(m, 'ops@example.com');
    expect(mail.subject).toBe('[mac] SSL CERTIFICATE EXPIRING: shop Bcc: x@example.com');
    expect(mail.text).toContain('The certificate expires in 1 day (2026-11-28T00:00:00.000Z).');
    expect(mail.html).not.toContain('javascript:');
    expect(mail.text).not.toContain('javascript:');
  });

  it('fills template variables and leaves unknown ones empty', () => {
    expect(renderTemplate('{{CHECK_ID}}/{{ CHECK_ALERT_ID }}/{{CHECK_RESULT_ID}}/{{X}}', m)).toBe('c/a//');
  });
});
