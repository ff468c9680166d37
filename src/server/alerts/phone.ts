import { sendHttp, urlUnder } from './http.js';
import { failed } from './outcome.js';
import { escapeHtml } from '../../html.js';
import { callText, smsText } from './render.js';
import type { AlertMessage, PhoneSettings, SendOutcome, SenderSettings } from './types.js';

/**
 * SMS and CALL channels go through a phone provider the operator configures
 * (`mac serve --phone-provider twilio ...`). A provider is two calls that each make one attempt
 * and say truthfully how it went; adding one is a file with a `PhoneProvider` and a line in
 * `createPhoneProvider`.
 */

/** A phone provider: one attempt to text or call an E.164 number. Never throws. */
export interface PhoneProvider {
  /** Sends `text` as an SMS to `to`. */
  sendSms(to: string, text: string): Promise<SendOutcome>;
  /** Calls `to` and reads `text` aloud. */
  call(to: string, text: string): Promise<SendOutcome>;
}

/** What SMS and CALL channels answer without a provider: no attempt can succeed. */
export const NO_PHONE_PROVIDER = 'no phone provider is configured for SMS and CALL channels (mac serve --phone-provider twilio ...)';

const E164 = /^\+[1-9]\d{6,14}$/;

/** Twilio answers 400 for a number it cannot reach, 401/403 for bad credentials, 404 for an unknown account. */
const TWILIO_PERMANENT = new Set([400, 401, 403, 404]);

/** The provider of `phone` (only Twilio for now). */
export function createPhoneProvider(settings: SenderSettings, phone: PhoneSettings): PhoneProvider {
  return twilio(settings, phone);
}

/**
 * Twilio's Programmable Messaging and Voice REST API: `POST /2010-04-01/Accounts/{sid}/Messages.json`
 * (To, From, Body) and `.../Calls.json` (To, From, Twiml with a `<Say>`), form-encoded, basic
 * auth account SID and auth token. 201 means Twilio queued the message or call.
 */
export function twilio(settings: SenderSettings, phone: PhoneSettings): PhoneProvider {
  const basic = Buffer.from(`${phone.accountSid}:${phone.authToken}`).toString('base64');
  // A receiver may echo the Authorization header: its base64 is as secret as the token.
  const secrets = [phone.authToken, basic];
  const post = (resource: string, form: Record<string, string>) =>
    sendHttp(settings, {
      method: 'POST',
      url: urlUnder(phone.url, `/2010-04-01/Accounts/${encodeURIComponent(phone.accountSid)}/${resource}`),
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      permanent: TWILIO_PERMANENT,
      secrets,
    });
  return {
    sendSms: (to, text) => post('Messages.json', { To: to, From: phone.from, Body: text }),
    call: (to, text) => post('Calls.json', { To: to, From: phone.from, Twiml: `<Response><Say>${escapeHtml(text)}</Say></Response>` }),
  };
}

/** Texts (SMS) or calls (CALL) the channel's `number` about `m` through `provider`. */
export async function sendPhone(provider: PhoneProvider | undefined, type: 'SMS' | 'CALL', config: Record<string, unknown>, m: AlertMessage): Promise<SendOutcome> {
  if (!provider) return failed(NO_PHONE_PROVIDER, [], { permanent: true });
  const number = typeof config.number === 'string' ? config.number.replace(/[\s()-]/g, '') : '';
  if (!E164.test(number)) return failed(`the ${type} channel's number is not an E.164 number (+ and 7 to 15 digits)`, [], { permanent: true });
  return type === 'SMS' ? provider.sendSms(number, smsText(m)) : provider.call(number, callText(m));
}
