import { describe, expect, it } from 'vitest';
import { buildWaves, changeKey } from '../../../src/apply/graph.js';
import { InternalError } from '../../../src/errors.js';
import { change } from './fixtures.js';

const keys = (waves: ReturnType<typeof buildWaves>['waves']) => waves.map((w) => w.map(changeKey).sort());

describe('buildWaves', () => {
  it('puts referenced kinds before checks and dashboards after checks', () => {
    const { waves } = buildWaves([
      change({ kind: 'Dashboard', id: 'main' }),
      change({ kind: 'TcpCheck', id: 'db' }),
      change({ kind: 'AlertChannel', id: 'mail' }),
      change({ kind: 'EnvironmentVariable', id: 'API_URL' }),
      change({ kind: 'DnsCheck', id: 'dns', action: 'update', remoteId: 'x' }),
      change({ kind: 'Snippet', id: 'setup' }),
    ]);
    expect(keys(waves)).toEqual([
      ['AlertChannel/mail', 'EnvironmentVariable/API_URL', 'Snippet/setup'],
      ['DnsCheck/dns', 'TcpCheck/db'],
      ['Dashboard/main'],
    ]);
  });

  it('runs deletes after creates and updates, in reverse kind order', () => {
    const { waves } = buildWaves([
      change({ kind: 'Snippet', id: 'old', action: 'delete', remoteId: 1 }),
      change({ kind: 'TcpCheck', id: 'gone', action: 'delete', remoteId: 'a' }),
      change({ kind: 'Dashboard', id: 'gone', action: 'delete', remoteId: 'd' }),
      change({ kind: 'TcpCheck', id: 'new' }),
    ]);
    expect(keys(waves)).toEqual([['TcpCheck/new'], ['Dashboard/gone'], ['TcpCheck/gone'], ['Snippet/old']]);
  });

  it('creates groups and private locations before checks; deletes them after every check change (no 409 for a group with checks)', () => {
    const { waves } = buildWaves([
      change({ kind: 'TcpCheck', id: 'moved', action: 'update', remoteId: 'm' }),
      change({ kind: 'CheckGroup', id: 'old', action: 'delete', remoteId: 1 }),
      change({ kind: 'PrivateLocation', id: 'old-dc', action: 'delete', remoteId: 'p' }),
      change({ kind: 'TcpCheck', id: 'gone', action: 'delete', remoteId: 'g' }),
      change({ kind: 'CheckGroup', id: 'new' }),
      change({ kind: 'PrivateLocation', id: 'dc' }),
      change({ kind: 'TcpCheck', id: 'added' }),
    ]);
    expect(keys(waves)).toEqual([
      ['CheckGroup/new', 'PrivateLocation/dc'],
      ['TcpCheck/added', 'TcpCheck/moved'],
      ['TcpCheck/gone'],
      ['CheckGroup/old', 'PrivateLocation/old-dc'],
    ]);
  });

  it('leaves noops out and pushes a change after what it depends on', () => {
    const { waves, deps } = buildWaves([
      change({ kind: 'TcpCheck', id: 'a', dependsOn: ['TcpCheck/b', 'Snippet/unchanged'] }),
      change({ kind: 'TcpCheck', id: 'b' }),
      change({ kind: 'TcpCheck', id: 'c', action: 'noop' }),
    ]);
    expect(keys(waves)).toEqual([['TcpCheck/b'], ['TcpCheck/a']]);
    expect(deps.get('TcpCheck/a')).toEqual(['TcpCheck/b']);
  });

  it('treats a $ref in the body as a dependency even without dependsOn', () => {
    const { waves } = buildWaves([
      change({ kind: 'DnsCheck', id: 'dns', desired: { setupSnippetId: { $ref: 'Snippet/s' } } }),
      change({ kind: 'Snippet', id: 's', action: 'delete', remoteId: 3 }),
    ]);
    // The snippet delete would otherwise run after the check; the reference pulls the check later.
    expect(keys(waves)).toEqual([['Snippet/s'], ['DnsCheck/dns']]);
  });

  it('reports a dependency cycle as a bug', () => {
    expect(() =>
      buildWaves([
        change({ kind: 'TcpCheck', id: 'a', dependsOn: ['TcpCheck/b'] }),
        change({ kind: 'TcpCheck', id: 'b', dependsOn: ['TcpCheck/a'] }),
      ]),
    ).toThrow(InternalError);
  });

  it('rejects a plan that changes one resource twice', () => {
    expect(() => buildWaves([change({ kind: 'Snippet', id: 's' }), change({ kind: 'Snippet', id: 's' })])).toThrow(/twice/);
  });
});
