import type { ServerOptions } from '../options.js';
import { alertPayload, sendWebhook } from '../runs/alerts.js';
import type { Senders } from './types.js';

/** The senders of the configured channels: webhooks; every other type fails for good, truthfully. */
export function createSenders(_options: ServerOptions): Senders {
  return {
    async send(channel, message) {
      if (channel.type !== 'WEBHOOK') return { ok: false, permanent: true, error: `${channel.type} channels cannot be delivered by this service` };
      const about = { runLocation: message.runLocation, responseTime: message.responseTime, startedAt: message.startedAt, errorMessage: message.errorMessage, checkResultId: message.checkResultId };
      const error = await sendWebhook(channel.config, alertPayload(message.alertType as 'ALERT_FAILURE', { id: message.checkId, name: message.checkName, checkType: message.checkType }, about));
      return error === null ? { ok: true, result: 'accepted' } : { ok: false, error };
    },
    sendMail: () => Promise.resolve({ ok: false, permanent: true, error: 'no SMTP server is configured (mac serve --smtp URL)' }),
    close() {},
  };
}
