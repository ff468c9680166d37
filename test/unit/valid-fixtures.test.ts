import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/config/load.js';
import { FIXTURES, fixtureCases } from '../helpers/fixtures.js';

const ENV = { FIXTURE_REGION: 'eu', FIXTURE_USER: 'ops', FIXTURE_SECRET: 's3cr3t', FIXTURE_HOST: 'db.example' };

describe('valid projects: both ends of every rule load without a diagnostic', () => {
  it.each(fixtureCases('valid'))('%s', async (name) => {
    const project = await loadProject(join(FIXTURES, 'valid', name), { env: ENV });
    expect(project.diagnostics).toEqual([]);
    expect(project.definitions.length).toBeGreaterThan(0);
  });
});

describe('resolved definitions (valid/features)', async () => {
  const project = await loadProject(join(FIXTURES, 'valid', 'features'), { env: ENV });
  const byId = new Map(project.definitions.map((d) => [`${d.kind}/${d.id}`, d]));
  const get = (key: string) => {
    const d = byId.get(key);
    if (!d) throw new Error(`no ${key}`);
    return d;
  };

  it('selects files by the include globs, never dot-folders, node_modules or mac.config.yaml', () => {
    expect(project.files).toEqual(['channels.yaml', 'checks/checks.yaml', 'checks/extra.mac.ts', 'notes/a.yml']);
  });

  it('merges defaults.check under checks; the check\'s own values win; only fields the kind has', () => {
    const tcp = get('TcpCheck/own-values');
    expect(tcp.spec).toMatchObject({ frequency: 1, tags: ['own'], locations: ['eu-west-1'] });
    expect(tcp.spec).not.toHaveProperty('environmentVariables');
    expect(tcp.refs.alertChannels).toEqual(['mail']);
    expect(get('DnsCheck/dns').spec.environmentVariables).toEqual([{ key: 'REGION', value: 'eu' }]);
    expect(get('Snippet/setup').spec).not.toHaveProperty('locations');
  });

  it('interpolates env references and records the whole-value ones', () => {
    expect(get('AlertChannel/mail').spec.config).toEqual({ address: 'ops@shop.example' });
    expect(get('AlertChannel/mail').envSources).toEqual({});
    expect(get('TcpCheck/own-values').envSources).toEqual({ '/request/hostname': 'FIXTURE_HOST' });
    expect(get('DnsCheck/dns').envSources).toEqual({ '/environmentVariables/0/value': 'FIXTURE_REGION' });
  });

  it('marks secret values', () => {
    expect(get('EnvironmentVariable/STRIPE_KEY').secretPaths).toEqual(['/value']);
    expect(get('MultiStepCheck/flow').secretPaths).toEqual(['/environmentVariables/0/value']);
    expect(get('DnsCheck/dns').secretPaths).toEqual([]);
  });

  it('reads scriptFile relative to the definition file into script', () => {
    expect(get('MultiStepCheck/flow').spec.script).toBe('await page.goto(process.env.URL);\n');
    expect(get('DnsCheck/dns').spec.script).toBe('');
    expect(get('MultiStepCheck/flow').spec).not.toHaveProperty('scriptFile');
  });

  it('keeps references out of the API body', () => {
    const dns = get('DnsCheck/dns');
    expect(dns.refs).toEqual({ alertChannels: ['mail'], setupSnippet: 'setup' });
    expect(dns.spec).not.toHaveProperty('setupSnippet');
    expect(dns.spec).not.toHaveProperty('alertChannels');
    expect(dns.spec).not.toHaveProperty('kind');
    expect(dns.spec).not.toHaveProperty('id');
  });

  it('positions a definition at its kind key; *.mac.ts ones at their id', () => {
    expect(get('DnsCheck/dns')).toMatchObject({ file: 'checks/checks.yaml', line: 16, col: 1 });
    expect(get('HeartbeatCheck/from-ts')).toMatchObject({ file: 'checks/extra.mac.ts', line: 5 });
  });

  it('keeps the key of an environment variable in its body and uses it as id', () => {
    expect(get('EnvironmentVariable/STRIPE_KEY').spec).toMatchObject({ key: 'STRIPE_KEY', secret: true });
  });
});

describe('tombstones (valid/tombstones)', async () => {
  const project = await loadProject(join(FIXTURES, 'valid', 'tombstones'), { env: {} });
  it('loads state: absent documents with identity fields only', () => {
    const absent = project.definitions.filter((d) => d.state === 'absent').map((d) => `${d.kind}/${d.id}`);
    expect(absent.sort()).toEqual([
      'AlertChannel/old-mail', 'Dashboard/old-dashboard', 'EnvironmentVariable/OLD_TOKEN',
      'MultiStepCheck/old-flow', 'Snippet/old-snippet', 'TcpCheck/old-check',
    ]);
    expect(project.definitions.find((d) => d.id === 'kept')?.state).toBe('present');
  });
});

describe('resolved definitions (valid/kinds): the four kinds of issue 16 and their references', async () => {
  const project = await loadProject(join(FIXTURES, 'valid', 'kinds'), { env: ENV });
  const get = (key: string) => project.definitions.find((d) => `${d.kind}/${d.id}` === key)!;

  it('loads the helpers of *.mac.ts and the references of checks', () => {
    expect(project.definitions.map((d) => `${d.kind}/${d.id}`).sort()).toEqual([
      'CheckGroup/core', 'PrivateLocation/dc', 'StatusPage/public', 'StatusPageService/web', 'TcpCheck/raw', 'TcpCheck/web',
    ]);
    expect(get('TcpCheck/web').refs).toEqual({ group: 'core', privateLocations: ['dc', 'Rack-42'], incidentService: 'web' });
    expect(get('TcpCheck/web').spec).not.toHaveProperty('group');
    expect(get('TcpCheck/raw').refs).toEqual({});
    expect(get('StatusPage/public').refs.cardServices).toEqual([['web']]);
    expect(get('StatusPageService/web').previousNames).toEqual(['Website']);
  });
});
