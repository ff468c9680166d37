import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { RunResult } from '../helpers/cli.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import { apiOk, type Served } from '../helpers/serve.js';

let served: Served;
let work: string;

const api = (method: string, path: string, body?: unknown): Promise<any> => apiOk(served, method, path, body);

const mac = (args: string[]): Promise<RunResult> =>
  runMacIn(args, { cwd: work, env: { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey } });

const docs = async (file: string) => parseAllDocuments(await readFile(join(work, 'mon', file), 'utf8')).map((d) => d.toJS());

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mac-reimport-'));
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
});

afterAll(async () => {
  await served?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('mac import into a project that already has definitions', () => {
  let channelId: number;

  it('imports only the selected kinds, keeping raw ids for references it did not import', async () => {
    channelId = (await api('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@shop.example' } })).id;
    await api('POST', '/v1/checks/tcp?autoAssignAlerts=false', {
      name: 'API gateway',
      request: { hostname: 'gw', port: 443 },
      alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
    });
    // The project exists already, with defaults that every check inherits.
    await mkdir(join(work, 'mon'));
    await writeFile(join(work, 'mon/mac.config.yaml'), 'project: shop\ndefaults:\n  check:\n    locations: [eu-west-1]\n    frequency: 5\n');

    const r = await mac(['import', '--out', 'mon', '--kind', 'tcp']);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Imported 1 resource into mon (project "shop")');
    expect(await readFile(join(work, 'mon/mac.config.yaml'), 'utf8')).toContain('frequency: 5');
    const [check] = await docs('checks/tcp.yaml');
    expect(check).toMatchObject({ id: 'api-gateway', alertChannelSubscriptions: [{ alertChannelId: channelId }] });
    expect(check).not.toHaveProperty('alertChannels');
    // The project's defaults (eu-west-1, every 5 minutes) differ from the check's: written explicitly.
    expect(check).toMatchObject({ locations: [], frequency: 10 });
  });

  it('writes new resources to new files and references already-defined ones by logical id', async () => {
    const before = await readFile(join(work, 'mon/checks/tcp.yaml'), 'utf8');
    await api('POST', '/v1/checks/tcp?autoAssignAlerts=false', {
      name: 'API gateway',
      request: { hostname: 'gw-2', port: 443 },
      locations: ['eu-west-1'],
      frequency: 5,
      alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
    });
    const r = await mac(['import', '--out', 'mon', '--kind', 'TcpCheck,AlertChannel']);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Imported 2 resources');
    expect(r.stdout).toContain('1 resource was already defined');
    expect(await readFile(join(work, 'mon/checks/tcp.yaml'), 'utf8')).toBe(before);

    const [added] = await docs('checks/tcp-2.yaml');
    // The id avoids the one the project already uses; project defaults are left out.
    expect(added).toEqual({
      kind: 'TcpCheck',
      id: 'api-gateway-2',
      adopt: added.adopt,
      name: 'API gateway',
      alertChannels: ['email-ops-shop-example'],
      request: { hostname: 'gw-2', port: 443 },
    });
    const [channel] = await docs('alert-channels.yaml');
    expect(channel).toEqual({ kind: 'AlertChannel', id: 'email-ops-shop-example', type: 'EMAIL', config: { address: 'ops@shop.example' } });

    const again = await mac(['import', '--out', 'mon']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to import');
  });

  it('declares every placeholder it writes under env: of the existing mac.config.yaml, keeping the file as it was', async () => {
    const config = join(work, 'mon/mac.config.yaml');
    await writeFile(config, `# our project\n${await readFile(config, 'utf8')}env: [ALREADY_HERE]\n`);
    await api('POST', '/v1/variables', { key: 'API_TOKEN', value: 'tok-never-read', secret: true });
    await api('POST', '/v1/variables', { key: 'DB_PASSWORD', value: 'pw-locked-value', locked: true });
    const r = await mac(['import', '--out', 'mon', '--kind', 'EnvironmentVariable']);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const text = await readFile(config, 'utf8');
    expect(text.startsWith('# our project\nproject: shop\n')).toBe(true);
    expect((await docs('mac.config.yaml'))[0].env).toEqual(['ALREADY_HERE', 'API_TOKEN', 'DB_PASSWORD']);
    // Without the values set, the masked placeholders only warn.
    const v = await mac(['validate', 'mon']);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stderr).toContain('warning: value: environment variable API_TOKEN is not set');
    expect(v.stderr + v.stdout).not.toMatch(/tok-never-read|pw-locked-value/);
  });

  it('refuses an unknown kind with the accepted values', async () => {
    const r = await mac(['import', '--out', 'mon', '--kind', 'GrpcCheck']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown kind "GrpcCheck" for --kind');
    expect(r.stderr).toContain('TcpCheck');
  });
});
