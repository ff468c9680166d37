import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../../src/config/connection.js';
import { UsageError } from '../../../src/errors.js';

describe('resolveConnection', () => {
  it('uses the dev key and account against the default local URL', () => {
    expect(resolveConnection({}, {})).toEqual({ apiUrl: 'http://127.0.0.1:4010', apiKey: 'mac-dev-key', accountId: 'dev', accountHeader: 'x-service-account' });
  });

  it('takes flags over the environment and trims trailing slashes', () => {
    const env = { MAC_API_URL: 'http://env.example', MAC_API_KEY: 'env-key', MAC_ACCOUNT_ID: 'env' };
    expect(resolveConnection({ apiUrl: 'https://api.example/', apiKey: 'flag-key' }, env)).toEqual({ apiUrl: 'https://api.example', apiKey: 'flag-key', accountId: 'env', accountHeader: 'x-service-account' });
  });

  it('asks for a key for any other URL', () => {
    expect(() => resolveConnection({ apiUrl: 'https://api.example' }, {})).toThrow('no API key for https://api.example');
  });

  it('refuses a URL that is not http or https, naming the protocol', () => {
    expect(() => resolveConnection({ apiUrl: 'ftp://api.example', apiKey: 'k' }, {})).toThrow('the API URL must be http or https, got "ftp:"');
    expect(() => resolveConnection({ apiUrl: 'not a url', apiKey: 'k' }, {})).toThrow(UsageError);
  });

  it('refuses credentials in the URL without printing them (the URL goes into messages and plans)', () => {
    const attempt = () => resolveConnection({}, { MAC_API_URL: 'https://ci:hunter2secret@api.example', MAC_API_KEY: 'k' });
    expect(attempt).toThrow('the API URL must not hold credentials (user:password@)');
    expect(attempt).not.toThrow(/hunter2/);
  });
});
