import { describe, expect, it } from 'vitest';
import { redactUrl, scrubSecrets, urlSecrets } from '../../../src/server/store/postgres.js';
import { parseDatabaseUrl, withPassword } from '../../../src/server/options.js';

describe('database URLs in messages', () => {
  it('hides the user info password and every secret query parameter', () => {
    expect(redactUrl('postgres://u:p%40ss@h:5432/db')).toBe('postgres://u:***@h:5432/db');
    expect(redactUrl('postgres://u@h/db?password=s3cret&sslmode=require&sslpassword=k')).toBe('postgres://u@h/db?password=***&sslmode=require&sslpassword=***');
    expect(redactUrl('postgres://u@h/db?PassWord=a&password=b')).not.toMatch(/=a|=b/);
    expect(redactUrl('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(redactUrl('postgres://[bad')).toBe('postgres://(unparsable URL)');
  });

  it('scrubs each secret of the URL from a message, as written and decoded', () => {
    const url = 'postgres://u:p%40ss@h/db?password=q%26w&sslpassword=zz';
    expect(urlSecrets(url).sort()).toEqual(['p%40ss', 'p@ss', 'q&w', 'zz']);
    expect(scrubSecrets('auth failed for p@ss / p%40ss / q&w / zz', url)).toBe('auth failed for *** / *** / *** / ***');
  });

  it('names only the scheme of a --database it cannot read', () => {
    expect(() => parseDatabaseUrl('mysql://u:hidden@h/db')).toThrow('not "mysql:..."');
    expect(() => parseDatabaseUrl('mysql://u:hidden@h/db')).not.toThrow(/hidden/);
  });

  it('puts a password file into the URL, encoded', () => {
    const url = withPassword('postgres://u@h:5432/db', 'p@ss:w/rd%\n');
    expect(new URL(url).password).toBe(encodeURIComponent('p@ss:w/rd%'));
    expect(decodeURIComponent(new URL(url).password)).toBe('p@ss:w/rd%');
    expect(() => withPassword('postgres://u:x@h/db', 'y')).toThrow(/already holds a password/);
    expect(() => withPassword('postgres://u@h/db?password=x', 'y')).toThrow(/already holds a password/);
    expect(() => withPassword('postgres://u@h/db', 'a\nb\n')).toThrow(/on one line/);
  });
});
