import { describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePlan, readPlanFile } from '../../../src/apply/plan-file.js';
import { recoverSecrets } from '../../../src/apply/secrets.js';
import { findStale, refuseIfStale } from '../../../src/apply/stale.js';
import { Refused, UsageError } from '../../../src/errors.js';
import { change } from './fixtures.js';

const doc = {
  version: 1,
  project: 'shop',
  createdAt: '2025-01-01T00:00:00.000Z',
  apiUrl: 'http://127.0.0.1:4010',
  summary: { create: 1, update: 0, delete: 0, noop: 0 },
  changes: [{ action: 'create', kind: 'Snippet', id: 's', patch: [], dependsOn: [], desired: { name: 's', script: 'x' } }],
  warnings: [],
};

describe('parsePlan', () => {
  it('accepts a plan of this version', () => {
    expect(parsePlan(doc, 'plan.json').changes[0].desired).toEqual({ name: 's', script: 'x' });
  });

  it('rejects an unknown version before looking at the rest', () => {
    expect(() => parsePlan({ version: 2 }, 'plan.json')).toThrow('plan.json: plan version 2 is not supported (this mac reads version 1)');
    expect(() => parsePlan([], 'p.json')).toThrow(UsageError);
  });

  it('never echoes a version that is not a number (it may be anything, even a secret)', () => {
    expect(() => parsePlan({ version: 'sk_live_4242' }, 'p.json')).toThrow('p.json: plan version of type string is not supported');
    expect(() => parsePlan({ version: 'sk_live_4242' }, 'p.json')).not.toThrow(/sk_live/);
  });

  it('names the field of a malformed plan', () => {
    const bad = { ...doc, changes: [{ ...doc.changes[0], kind: 'HttpCheck' }] };
    expect(() => parsePlan(bad, 'plan.json')).toThrow(/plan.json is not a valid plan: changes\.0\.kind/);
  });
});

describe('readPlanFile', () => {
  const fileWith = async (text: string) => {
    const file = join(await mkdtemp(join(tmpdir(), 'mac-plan-file-')), 'plan.json');
    await writeFile(file, text);
    return file;
  };
  const messageOf = (file: string) => readPlanFile(file).then(() => '', (err: Error) => err.message);

  it('does not quote a file that is not JSON (an .env passed by mistake holds secrets)', async () => {
    const message = await messageOf(await fileWith('STRIPE_KEY=sk_live_4242\n'));
    expect(message).toMatch(/plan\.json is not JSON$/);
    expect(message).not.toContain('STRIPE');
  });

  it('names the line and column where the JSON breaks', async () => {
    const message = await messageOf(await fileWith('{\n  "version": 1,\n  "token": "sk_live_4242" oops\n}'));
    expect(message).toMatch(/plan\.json is not JSON \(line 3, column 27\)$/);
    expect(message).not.toContain('sk_live');
  });
});

describe('findStale', () => {
  const fp = (_kind: string, live: Record<string, unknown>) => `sha256:${String(live.v)}`;
  const changes = [
    change({ kind: 'TcpCheck', id: 'same', action: 'update', remoteId: 'a', liveFingerprint: 'sha256:1' }),
    change({ kind: 'TcpCheck', id: 'moved', action: 'update', remoteId: 'b', liveFingerprint: 'sha256:1' }),
    change({ kind: 'Snippet', id: 'gone', action: 'delete', remoteId: 3, liveFingerprint: 'sha256:1' }),
    change({ kind: 'Snippet', id: 'new' }),
    change({ kind: 'Snippet', id: 'raced' }),
    change({ kind: 'Snippet', id: 'quiet', action: 'noop' }),
  ];
  const live = new Map<string, Record<string, unknown> | null>([
    ['TcpCheck/same', { v: 1 }],
    ['TcpCheck/moved', { v: 2 }],
    ['Snippet/gone', null],
    ['Snippet/raced', { v: 1 }],
  ]);

  it('finds changed, deleted and newly created objects', () => {
    expect(findStale(changes, live, fp)).toEqual([
      { key: 'TcpCheck/moved', remoteId: 'b', reason: 'changed since the plan' },
      { key: 'Snippet/gone', remoteId: 3, reason: 'deleted since the plan' },
      { key: 'Snippet/raced', reason: 'created since the plan' },
    ]);
  });

  it('refuses naming each object', () => {
    expect(() => refuseIfStale(findStale(changes, live, fp))).toThrow(/TcpCheck\/moved \(id b\): changed since the plan\n {2}Snippet\/gone/);
    expect(() => refuseIfStale([])).not.toThrow();
  });
});

describe('recoverSecrets', () => {
  const secretChange = change({
    kind: 'EnvironmentVariable',
    id: 'STRIPE_KEY',
    desired: { key: 'STRIPE_KEY', value: '(sensitive)', secret: true },
    secrets: [{ path: '/value', env: 'SHOP_STRIPE_KEY' }],
  });

  it('takes the value from the environment variable it came from', async () => {
    const values = await recoverSecrets([secretChange], { env: { SHOP_STRIPE_KEY: 'sk_test' } });
    expect(values).toEqual(new Map([['EnvironmentVariable/STRIPE_KEY', new Map([['/value', 'sk_test']])]]));
  });

  it('falls back to the re-loaded definitions', async () => {
    const bodies = new Map([['EnvironmentVariable/STRIPE_KEY', { key: 'STRIPE_KEY', value: 'from-file', secret: true }]]);
    const values = await recoverSecrets([secretChange], { env: {}, reload: async () => bodies });
    expect(values.get('EnvironmentVariable/STRIPE_KEY')?.get('/value')).toBe('from-file');
  });

  it('never takes a value still holding ${{ env.NAME }} as recovered, and names the variables a value needs', async () => {
    const partial = change({
      kind: 'AlertChannel',
      id: 'hook',
      desired: { type: 'WEBHOOK', config: { headers: [{ key: 'A', value: '(sensitive, not set: TOKEN)', locked: true }] } },
      secrets: [{ path: '/config/headers/0/value', missing: ['TOKEN'] }],
    });
    const bodies = new Map([['AlertChannel/hook', { type: 'WEBHOOK', config: { headers: [{ key: 'A', value: 'Bearer ${{ env.TOKEN }}', locked: true }] } }]]);
    const err = await recoverSecrets([partial], { env: {}, reload: async () => bodies }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Refused);
    expect((err as Refused).message).toBe(
      'environment variable TOKEN not set; cannot recover masked value the plan left out: AlertChannel/hook /config/headers/0/value (env TOKEN); nothing was applied',
    );
  });

  it('refuses naming the value and its variable, without printing anything secret', async () => {
    const err = await recoverSecrets([secretChange], { env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Refused);
    expect((err as Refused).message).toBe(
      'environment variable SHOP_STRIPE_KEY not set; cannot recover masked value the plan left out: EnvironmentVariable/STRIPE_KEY /value (env SHOP_STRIPE_KEY); nothing was applied',
    );
  });
});
