import { describe, expect, it } from 'vitest';
import { rewriteReferences, toDefinition, type ConvertContext } from '../../src/import/convert.js';
import { EnvNameAllocator } from '../../src/import/ids.js';

const refs = {
  alertChannel: (id: number) => ({ 1: 'oncall-email', 2: 'webhook-ops' })[id],
  snippet: (id: number) => ({ 7: 'auth-setup' })[id],
};

function ctx(over: Partial<ConvertContext> = {}): ConvertContext {
  return { serverDefaults: {}, projectDefaults: {}, refs, envNames: new EnvNameAllocator(), ...over };
}

describe('rewriteReferences', () => {
  it('turns activated subscriptions to known channels into alertChannels and keeps the rest raw', () => {
    const body = {
      alertChannelSubscriptions: [
        { alertChannelId: 2, activated: true },
        { alertChannelId: 1, activated: true },
        { alertChannelId: 9, activated: true },
        { alertChannelId: 1, activated: false },
      ],
    };
    expect(rewriteReferences(body, refs)).toEqual({
      alertChannels: ['webhook-ops', 'oncall-email'],
      alertChannelSubscriptions: [
        { alertChannelId: 9, activated: true },
        { alertChannelId: 1, activated: false },
      ],
    });
  });
  it('names known snippets by logical id and keeps unknown snippet ids', () => {
    expect(rewriteReferences({ setupSnippetId: 7, tearDownSnippetId: 8, script: '' }, refs)).toEqual({
      setupSnippet: 'auth-setup',
      tearDownSnippetId: 8,
      script: '',
    });
  });
  it('writes nothing for an empty subscription list', () => {
    expect(rewriteReferences({ alertChannelSubscriptions: [] }, refs)).toEqual({});
  });
});

describe('toDefinition', () => {
  it('puts kind, id and name first and leaves defaults out', () => {
    const out = toDefinition(
      { kind: 'TcpCheck', remoteId: 'u1', body: { frequency: 10, request: { hostname: 'db', port: 5432 }, name: 'DB' } },
      'db',
      ctx({ serverDefaults: { frequency: 10 } }),
    );
    expect(Object.keys(out.doc)).toEqual(['kind', 'id', 'name', 'request']);
    expect(out.env).toEqual([]);
    expect(out.script).toBeUndefined();
  });
  it('writes a secret variable as a placeholder named after its key, without a value', () => {
    const out = toDefinition(
      { kind: 'EnvironmentVariable', remoteId: 'API_TOKEN', body: { key: 'API_TOKEN', value: null, secret: true, locked: false } },
      'API_TOKEN',
      ctx(),
    );
    expect(out.doc).toEqual({ kind: 'EnvironmentVariable', key: 'API_TOKEN', value: '${{ env.API_TOKEN }}', secret: true, locked: false });
    expect(out.env).toEqual([{ name: 'API_TOKEN', kind: 'EnvironmentVariable', id: 'API_TOKEN', path: 'value' }]);
  });
  it('keeps a locked value in memory only, for the round-trip plan', () => {
    const out = toDefinition(
      { kind: 'EnvironmentVariable', remoteId: 'DB_PASSWORD', body: { key: 'DB_PASSWORD', value: 'hunter2', locked: true } },
      'DB_PASSWORD',
      ctx(),
    );
    expect(out.doc.value).toBe('${{ env.DB_PASSWORD }}');
    expect(JSON.stringify(out.doc)).not.toContain('hunter2');
    expect(out.env[0].value).toBe('hunter2');
  });
  it('names secret check variables after the check and the key', () => {
    const out = toDefinition(
      {
        kind: 'MultiStepCheck',
        remoteId: 'u2',
        body: {
          name: 'Login',
          script: 'await page.goto(url)',
          environmentVariables: [
            { key: 'USER', value: 'bob', locked: false, secret: false },
            { key: 'PASS', value: null, locked: false, secret: true },
          ],
        },
      },
      'login',
      ctx(),
    );
    expect(out.doc.environmentVariables).toEqual([
      { key: 'USER', value: 'bob', locked: false, secret: false },
      { key: 'PASS', value: '${{ env.LOGIN_PASS }}', locked: false, secret: true },
    ]);
    expect(out.script).toEqual({ field: 'script', content: 'await page.goto(url)' });
  });
  it('writes alert-channel credentials and locked headers as placeholders', () => {
    const out = toDefinition(
      {
        kind: 'AlertChannel',
        remoteId: 3,
        body: {
          type: 'WEBHOOK',
          config: {
            name: 'ops',
            url: 'https://hooks.example/x',
            webhookSecret: 's3cr3t',
            headers: [
              { key: 'Authorization', value: 'Bearer abc', locked: true },
              { key: 'X-Team', value: 'shop', locked: false },
            ],
          },
        },
      },
      'webhook-ops',
      ctx(),
    );
    const text = JSON.stringify(out.doc);
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toContain('Bearer abc');
    expect(text).toContain('shop');
    expect(out.env.map((e) => e.name)).toEqual(['WEBHOOK_OPS_WEBHOOK_SECRET', 'WEBHOOK_OPS_AUTHORIZATION']);
  });
  it('does not write an empty DNS script to a file', () => {
    const out = toDefinition({ kind: 'DnsCheck', remoteId: 'u3', body: { name: 'dns', script: '' } }, 'dns', ctx());
    expect(out.script).toBeUndefined();
    expect(out.doc.script).toBe('');
  });
});
