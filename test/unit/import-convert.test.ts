import { describe, expect, it } from 'vitest';
import { rewriteReferences, toDefinition, type ConvertContext } from '../../src/import/convert.js';
import { EnvNameAllocator } from '../../src/import/ids.js';
import { KIND_SPECS } from '../../src/kinds/index.js';
import { normalizeShape } from '../../src/kinds/shape.js';
import type { Kind } from '../../src/schema/kinds.js';

const refs = {
  alertChannel: (id: number) => ({ 1: 'oncall-email', 2: 'webhook-ops' })[id],
  snippet: (id: number) => ({ 7: 'auth-setup' })[id],
  checkGroup: (id: number) => ({ 3: 'payments' })[id],
  service: (id: string) => ({ 'u-db': 'database' })[id],
  privateLocation: (slug: string) => ({ 'dc-1': 'dc-one' })[slug],
};

function ctx(kind: Kind, over: Partial<ConvertContext> = {}): ConvertContext {
  return { spec: KIND_SPECS[kind], projectDefaults: {}, refs, envNames: new EnvNameAllocator(), ...over };
}

/** Converts a live body the way import does: normalized by the plan's shape first. */
function convert(kind: Kind, body: Record<string, unknown>, id: string, over: Partial<ConvertContext> = {}) {
  const spec = KIND_SPECS[kind];
  return toDefinition(kind, normalizeShape(body, spec.shapeOf(body)).value, id, ctx(kind, over));
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
  it('names a known check group by logical id and keeps an unknown group id', () => {
    expect(rewriteReferences({ groupId: 3, groupOrder: 2 }, refs)).toEqual({ group: 'payments', groupOrder: 2 });
    expect(rewriteReferences({ groupId: 4 }, refs)).toEqual({ groupId: 4 });
  });
  it('names private locations of the project by logical id and keeps other slugs', () => {
    expect(rewriteReferences({ privateLocations: ['dc-1', 'Rack-42'] }, refs)).toEqual({ privateLocations: ['dc-one', 'Rack-42'] });
  });
  it('names status-page services by logical id in triggerIncident and cards', () => {
    const trigger = { serviceId: 'u-db', severity: 'MAJOR', name: 'DB down', description: 'x', notifySubscribers: false };
    expect(rewriteReferences({ triggerIncident: trigger }, refs)).toEqual({
      triggerIncident: { service: 'database', severity: 'MAJOR', name: 'DB down', description: 'x', notifySubscribers: false },
    });
    expect(rewriteReferences({ triggerIncident: { ...trigger, serviceId: 'other' } }, refs)).toEqual({ triggerIncident: { ...trigger, serviceId: 'other' } });
    expect(rewriteReferences({ cards: [{ name: 'Core', services: [{ id: 'u-db' }] }] }, refs)).toEqual({ cards: [{ name: 'Core', services: ['database'] }] });
  });
  it('writes nothing for an empty subscription list', () => {
    expect(rewriteReferences({ alertChannelSubscriptions: [] }, refs)).toEqual({});
  });
});

describe('toDefinition', () => {
  it('puts kind, id and name first and leaves defaults out', () => {
    const out = convert('TcpCheck', { frequency: 10, request: { hostname: 'db', port: 5432 }, name: 'DB', id: 'u1', created_at: 'x' }, 'db');
    expect(Object.keys(out.doc)).toEqual(['kind', 'id', 'name', 'request']);
    expect(out.env).toEqual([]);
    expect(out.script).toBeUndefined();
  });
  it('writes a secret variable as a placeholder named after its key, without a value', () => {
    const out = convert('EnvironmentVariable', { key: 'API_TOKEN', value: null, secret: true, locked: false }, 'API_TOKEN');
    expect(out.doc).toEqual({ kind: 'EnvironmentVariable', key: 'API_TOKEN', value: '${{ env.API_TOKEN }}', secret: true });
    expect(out.env).toEqual([{ name: 'API_TOKEN', kind: 'EnvironmentVariable', id: 'API_TOKEN', path: 'value' }]);
  });
  it('keeps a locked value in memory only, for the round-trip plan', () => {
    const out = convert('EnvironmentVariable', { key: 'DB_PASSWORD', value: 'hunter2', locked: true }, 'DB_PASSWORD');
    expect(out.doc.value).toBe('${{ env.DB_PASSWORD }}');
    expect(JSON.stringify(out.doc)).not.toContain('hunter2');
    expect(out.env[0].value).toBe('hunter2');
  });
  it('names secret check variables after the check and the key', () => {
    const out = convert(
      'MultiStepCheck',
      {
        name: 'Login',
        script: 'await page.goto(url)',
        environmentVariables: [
          { key: 'USER', value: 'bob', locked: false, secret: false },
          { key: 'PASS', value: null, locked: false, secret: true },
        ],
      },
      'login',
    );
    // A set keyed by `key`: the plan sorts it, import writes it in that order, defaults left out.
    expect(out.doc.environmentVariables).toEqual([
      { key: 'PASS', value: '${{ env.LOGIN_PASS }}', secret: true },
      { key: 'USER', value: 'bob' },
    ]);
    expect(out.script).toEqual({ field: 'script', content: 'await page.goto(url)' });
  });
  it('writes alert-channel credentials and locked headers as placeholders', () => {
    const out = convert(
      'AlertChannel',
      {
        id: 3,
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
      'webhook-ops',
    );
    const text = JSON.stringify(out.doc);
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toContain('Bearer abc');
    expect(text).toContain('shop');
    expect(out.env.map((e) => [e.name, e.path, e.value])).toEqual([
      ['WEBHOOK_OPS_AUTHORIZATION', 'config.headers.0.value', 'Bearer abc'],
      ['WEBHOOK_OPS_WEBHOOK_SECRET', 'config.webhookSecret', 's3cr3t'],
    ]);
  });
  it('does not write an empty DNS script to a file', () => {
    const out = convert('DnsCheck', { name: 'dns', script: '', request: { query: 'example.com', recordType: 'A' } }, 'dns');
    expect(out.script).toBeUndefined();
    expect(out.doc).not.toHaveProperty('script');
  });
  it('writes the channels of the project defaults only where a check differs from them', () => {
    const body = { name: 'a', request: { hostname: 'h', port: 1 }, alertChannelSubscriptions: [{ alertChannelId: 1, activated: true }] };
    const defaults = { projectDefaults: { alertChannels: ['oncall-email'] } };
    expect(convert('TcpCheck', body, 'a', defaults).doc).not.toHaveProperty('alertChannels');
    expect(convert('TcpCheck', { ...body, alertChannelSubscriptions: [] }, 'a', defaults).doc).toHaveProperty('alertChannels', []);
  });
  it('writes the script of a snippet for its own file', () => {
    const out = convert('Snippet', { id: 4, name: 'Auth setup', script: 'setup()\n' }, 'auth-setup');
    expect(out.script).toEqual({ field: 'script', content: 'setup()\n' });
    expect(out.doc).toEqual({ kind: 'Snippet', id: 'auth-setup', name: 'Auth setup', script: 'setup()\n' });
  });
  it('writes a raw subscription whole: the schema requires activated even where the plan defaults it', () => {
    const body = { name: 'a', request: { hostname: 'h', port: 1 }, alertChannelSubscriptions: [{ alertChannelId: 99, activated: true }] };
    expect(convert('TcpCheck', body, 'a').doc).toEqual({
      kind: 'TcpCheck',
      id: 'a',
      name: 'a',
      alertChannelSubscriptions: [{ alertChannelId: 99, activated: true }],
      request: { hostname: 'h', port: 1 },
    });
  });
});
