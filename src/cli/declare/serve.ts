// `mac serve` as its help shows it: arguments, flags, defaults. What it does is in ../commands/serve.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { ServeFlags } from '../commands/serve.js';
import {
  DEFAULT_ALERT_TIMEOUT_MS,
  DEFAULT_MAIL_FROM,
  DEFAULT_OPSGENIE_URL,
  DEFAULT_PAGERDUTY_URL,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_TWILIO_URL,
} from '../../schema/serve-defaults.js';

const collect = (value: string, prev: string[]) => [...prev, value];

/** `mac serve`: runs the local monitoring API until SIGINT/SIGTERM. */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('serve')
    .description('run the monitoring service: the API and the scheduled runs of the TCP, DNS, URL, API, multi-step, browser and heartbeat checks it holds')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4010')
    .option('--state <file>', 'SQLite database that keeps the state across restarts (default: memory only); a journal of an earlier mac serve is imported once')
    .option('--database <url>', 'database of the state: sqlite:FILE (same as --state FILE), or postgres://USER@HOST:PORT/DATABASE (several instances may share it; its password from --database-password-file or PGPASSWORD)')
    .option(
      '--database-password-file <file>',
      'file holding the PostgreSQL password of --database (keeps it out of the command line; PGPASSWORD in the environment works too)',
    )
    .option('--retention-days <n>', 'days run data (results, sessions, heartbeat events, alert notifications) is kept; 0 keeps it forever', String(DEFAULT_RETENTION_DAYS))
    .option('--api-key <key>', 'accepted API key, KEY or KEY:read-only (repeatable, paired with --account)', collect, [])
    .option('--account <id>', 'account of the --api-key at the same position (repeatable)', collect, [])
    .option('--keys <file>', 'JSON file of API keys: {"keys": [{"key", "account", "role"}]} (with or instead of --api-key)')
    .option('--account-header <name>', 'header requests name their account in, e.g. x-checkly-account as the reference API does; a request sending x-service-account instead is then refused (default: x-service-account)')
    .option('--latency <ms>', 'milliseconds added to every response', '0')
    .option('--faults <spec>', 'injected faults per request, e.g. 503:0.1,429:0.05,reset:0.02')
    .option('--rate-limit <n/seconds>', 'requests per key per window; 0/60 disables', '600/60')
    .option('--page-rate-limit <n/seconds>', 'requests of the public pages (status pages, dashboards) per client address per window; 0/60 disables', '300/60')
    .option('--page-cache-seconds <n>', 'seconds a rendered public page is shared by every visitor before it is rendered again; 0 renders every request', '5')
    .option('--metrics-port <port>', 'serve the operator metrics (Prometheus text format, GET /metrics) on this port of --host (0: a free one); none by default')
    .option('--time-scale <k>', 'run schedules K times faster', '1')
    .option('--no-runs', 'do not run the stored checks')
    .option('--public-url <url>', 'the URL people reach the service at (http:// or https://): links in alerts and in mails to status-page subscribers start with it; default: the URL it listens on')
    .option(
      '--deny-targets <list>',
      'addresses the checks and webhooks may not reach, added to the defaults (the service itself, its database, link-local and cloud metadata): CIDR, ADDRESS, HOST:PORT, [IPV6]:PORT, comma separated, repeatable; "none" drops the defaults',
      collect,
      [],
    )
    .option('--unsafe-scripts', 'run multi-step and setup/teardown scripts as the service\'s own user when the bubblewrap sandbox is not available (by default they are refused then); never with accounts you do not trust')
    .option('--agent-lease <seconds>', "how long an agent's claim of a private location's run lasts; an agent silent that long loses it to another agent of the location", '300')
    .option('--agent-queue-timeout <seconds>', "how long a private location's run may wait for an agent before it is recorded as not run", '360')
    .option('--log-format <format>', 'event lines on stderr (state changes, notifications sent, retried or failed, runs shed): text or json', 'text')
    .option('--smtp <url>', 'SMTP server of alert and subscriber mails: smtp://[USER[:PASSWORD]@]HOST[:PORT] (STARTTLS when offered) or smtps://... (TLS)')
    .option('--smtp-password-file <file>', 'file holding the SMTP password (instead of one in the --smtp URL)')
    .option('--smtp-ca <file>', "PEM certificates to trust for the SMTP server's TLS besides the system's (a relay with its own CA)")
    .option('--mail-from <address>', `From of every mail: ADDRESS or "Name <ADDRESS>" (default: ${DEFAULT_MAIL_FROM})`)
    .option('--pagerduty-url <url>', 'base URL of PagerDuty\'s Events API v2', DEFAULT_PAGERDUTY_URL)
    .option('--opsgenie-url <url>', `base URL of Opsgenie's Alert API for both regions (default: ${DEFAULT_OPSGENIE_URL.US}, EU: ${DEFAULT_OPSGENIE_URL.EU})`)
    .option('--phone-provider <name>', 'provider of SMS and CALL channels: twilio (none: they fail, saying so)')
    .option('--twilio-url <url>', 'base URL of Twilio\'s REST API', DEFAULT_TWILIO_URL)
    .option('--twilio-account-sid <sid>', 'Twilio account SID (AC...)')
    .option('--twilio-token-file <file>', 'file holding the Twilio auth token')
    .option('--phone-from <number>', 'E.164 number SMS and calls come from')
    .option('--alert-timeout <ms>', 'how long one delivery attempt of an alert or mail may take', String(DEFAULT_ALERT_TIMEOUT_MS))
    .action(async (flags: ServeFlags) => {
      // The sandbox's probe (a bwrap process) runs while the service's modules load.
      const sandbox = import('../../runner/sandbox.js').then((m) => m.probeSandbox());
      return (await import('../commands/serve.js')).run(ctx, flags, sandbox);
    });
};
