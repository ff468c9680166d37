import { createMailer, NO_SMTP } from './mail.js';
import { failed } from './outcome.js';
import { sendOpsgenie } from './opsgenie.js';
import { sendPagerduty } from './pagerduty.js';
import { createPhoneProvider, sendPhone } from './phone.js';
import { alertMail } from './render.js';
import { sendSlack } from './slack.js';
import { sendWebhook } from './webhook.js';
import type { AlertMessage, ChannelRecord, MailMessage, SendOutcome, SenderSettings } from './types.js';

/**
 * The channel senders: one delivery attempt of one alert to one channel, and the truth about it.
 * The notification queue calls them, retries what is worth retrying and records the outcome.
 */

/** The senders of a running service. */
export interface Senders {
  /** One attempt to deliver `message` on `channel`. Never throws. */
  send(channel: ChannelRecord, message: AlertMessage): Promise<SendOutcome>;
  /** One attempt to send `mail` over SMTP (alert mails, status-page subscriber mails). Never throws. */
  sendMail(mail: MailMessage): Promise<SendOutcome>;
  /** Frees the SMTP transport; later sends fail (and are retried by whoever holds them). */
  close(): void;
}

type Sender = (channel: ChannelRecord, message: AlertMessage) => Promise<SendOutcome>;

/** The senders of `settings`. */
export function createSenders(settings: SenderSettings): Senders {
  const mailer = createMailer(settings);
  const phone = settings.phone ? createPhoneProvider(settings, settings.phone) : undefined;
  const sendMail = (mail: MailMessage): Promise<SendOutcome> => (mailer ? mailer.send(mail) : Promise.resolve(failed(NO_SMTP, [], { permanent: true })));
  // One sender per channel type (api-decisions §3.5).
  const byType: Record<string, Sender> = {
    EMAIL: (ch, m) => {
      const address = typeof ch.config.address === 'string' ? ch.config.address.trim() : '';
      return sendMail(alertMail(m, address));
    },
    SLACK: (ch, m) => sendSlack(settings, ch.config, m),
    WEBHOOK: (ch, m) => sendWebhook(settings, ch.config, m),
    PAGERDUTY: (ch, m) => sendPagerduty(settings, ch.config, m),
    OPSGENIE: (ch, m) => sendOpsgenie(settings, ch.config, m),
    SMS: (ch, m) => sendPhone(phone, 'SMS', ch.config, m),
    CALL: (ch, m) => sendPhone(phone, 'CALL', ch.config, m),
  };
  return {
    async send(channel, message) {
      const sender = Object.hasOwn(byType, channel.type) ? byType[channel.type] : undefined;
      if (!sender) return failed(`no sender for channel type ${String(channel.type).slice(0, 40)}`, [], { permanent: true });
      try {
        return await sender({ ...channel, config: channel.config ?? {} }, message);
      } catch (err) {
        // The senders catch what they expect; anything else is a bug, reported without its details
        // (they could hold the channel's config).
        return failed(`internal error in the ${channel.type} sender (${(err as Error)?.name ?? 'Error'})`);
      }
    },
    sendMail: async (mail) => {
      try {
        return await sendMail(mail);
      } catch (err) {
        return failed(`internal error in the mail sender (${(err as Error)?.name ?? 'Error'})`);
      }
    },
    close: () => mailer?.close(),
  };
}
