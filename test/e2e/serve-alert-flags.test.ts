import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMac } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';

// The alert flags of mac serve, as an operator types them: checked at start with errors naming
// the flag, and never a password or token on the screen.

const secretFile = (content: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'mac-secret-')), 'secret');
  writeFileSync(file, content);
  return file;
};

const SID = `AC${'0123456789abcdef'.repeat(2)}`;

describe('mac serve alert flags', () => {
  it('starts with SMTP, the public URL and Twilio, and shows where mail and calls go without the password or token', async () => {
    const token = secretFile('tw-token-5e5e5e5e\n');
    const s = await startServe([
      '--no-runs',
      '--smtp',
      'smtp://alerts:url-pass-4242@127.0.0.1:2525',
      '--mail-from',
      'Monitoring <alerts@example.com>',
      '--public-url',
      'https://mon.example.com/',
      '--phone-provider',
      'twilio',
      '--twilio-account-sid',
      SID,
      '--twilio-token-file',
      token,
      '--phone-from',
      '+15550001111',
    ]);
    try {
      const log = s.log();
      expect(log).toContain('mail: smtp://alerts:***@127.0.0.1:2525, from Monitoring <alerts@example.com>');
      expect(log).toContain('phone: twilio at https://api.twilio.com, from +15550001111');
      expect(log).toContain('public URL: https://mon.example.com');
      expect(log).not.toContain('url-pass-4242');
      expect(log).not.toContain('tw-token-5e5e5e5e');
    } finally {
      await s.stop();
    }
  });

  it('rejects bad alert flags with exit code 1, naming the flag and never the password', async () => {
    const cases: Array<[string[], string]> = [
      [['--smtp', 'http://u:hunter22@mail.example.com'], '--smtp must start with smtp://'],
      [['--smtp', 'smtp://u:hunter22@mail.example.com', '--smtp-password-file', secretFile('other\n')], '--smtp holds a password and --smtp-password-file gives another'],
      [['--smtp', 'smtp://u@mail.example.com', '--smtp-password-file', join(tmpdir(), 'no-such-mac-password')], '--smtp-password-file: cannot read'],
      [['--public-url', 'mon.example.com'], '--public-url must be an absolute http:// or https:// URL'],
      [['--phone-provider', 'twilio', '--twilio-account-sid', SID], '--phone-provider twilio needs --twilio-token-file'],
      [['--twilio-account-sid', SID], '--twilio-account-sid needs --phone-provider twilio'],
    ];
    // The parsers have unit tests (alert-settings.test.ts): these check the wiring of each kind of flag.
    const results = await Promise.all(cases.map(([flags]) => runMac(['serve', '--port', '0', '--no-runs', ...flags])));
    results.forEach((r, i) => {
      expect(r.code, cases[i][0].join(' ')).toBe(1);
      expect(r.stderr).toContain(cases[i][1]);
      expect(r.stderr).not.toContain('hunter22');
    });
  });
});
