import { describe, expect, it } from 'vitest';
import { renderImport } from '../../src/import/report.js';
import type { ImportResult } from '../../src/import/run.js';
import { selectKinds } from '../../src/import/select.js';
import { UsageError } from '../../src/errors.js';

const base: ImportResult = {
  project: 'shop',
  configWritten: true,
  files: [
    { path: 'schemas/tcp-check.schema.json', content: '{}' },
    { path: 'checks/multistep/login.js', content: 'x' },
    { path: 'checks/tcp.yaml', content: '', kind: 'TcpCheck', documents: 2 },
    { path: 'mac.config.yaml', content: 'project: shop\n' },
  ],
  imported: [
    { kind: 'TcpCheck', id: 'db' },
    { kind: 'TcpCheck', id: 'web' },
  ],
  alreadyDefined: 0,
  skipped: [],
  unsupported: [{ id: 'u7', name: 'Homepage', checkType: 'BROWSER' }],
  env: [
    { name: 'API_TOKEN', kind: 'EnvironmentVariable', id: 'API_TOKEN', path: 'value', unreadable: true },
    { name: 'OPS_WEBHOOK_SECRET', kind: 'AlertChannel', id: 'ops', path: 'config.webhookSecret', unreadable: false },
  ],
  roundTrip: { adoptions: ['TcpCheck/db', 'TcpCheck/web'], differences: [], unrelated: 0, warnings: [] },
};

describe('renderImport', () => {
  it('lists definitions first, the environment to set, and the round-trip verdict', () => {
    const r = renderImport(base, 'mon');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toEqual([
      'Imported 2 resources into mon (project "shop"):',
      '  checks/tcp.yaml                2 TcpCheck',
      '  checks/multistep/login.js      script',
      '  mac.config.yaml                project shop',
      '  schemas/tcp-check.schema.json  JSON Schema (editor support)',
      '',
      'Set these environment variables before `mac plan` and `mac apply` (their values are not written anywhere):',
      '  API_TOKEN           EnvironmentVariable/API_TOKEN value (secret: the API does not return it, set the real value)',
      '  OPS_WEBHOOK_SECRET  AlertChannel/ops config.webhookSecret (its current value is in the account)',
      '',
      'Round trip: the written definitions match the account. 2 checks will be adopted (ownership tag added) by the next `mac apply`. Secret values not compared (the API does not return them): API_TOKEN.',
    ]);
    expect(r.stderr).toEqual(['warning: check "Homepage" (u7) not imported: mac has no definition kind for BROWSER checks']);
  });
  it('fails with every difference listed field by field', () => {
    const r = renderImport(
      {
        ...base,
        roundTrip: {
          adoptions: [],
          differences: [{ kind: 'TcpCheck', id: 'db', action: 'update', file: 'checks/tcp.yaml', line: 2, ops: [{ op: 'replace', path: '/frequency', value: 5 }] }],
          unrelated: 0,
          warnings: [],
        },
      },
      'mon',
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('error: the written definitions differ from the account in 1 resource:');
    expect(r.stderr).toContain('    replace /frequency: 5');
    expect(r.stdout.at(-1)).toMatch(/^Round trip: FAILED/);
  });
});

describe('selectKinds', () => {
  it('accepts kinds and short names, repeated or comma-separated, in dependency order', () => {
    expect(selectKinds(['tcp,Snippet', 'alert-channels'])).toEqual(['Snippet', 'AlertChannel', 'TcpCheck']);
    expect(selectKinds(undefined)).toHaveLength(17);
    expect(selectKinds(['status-pages,groups', 'private-location', 'services'])).toEqual(['PrivateLocation', 'CheckGroup', 'StatusPageService', 'StatusPage']);
  });
  it('rejects an unknown kind with a usage error naming the accepted ones', () => {
    expect(() => selectKinds(['agentic'])).toThrow(UsageError);
  });
});
