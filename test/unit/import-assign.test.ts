import { describe, expect, it } from 'vitest';
import { assignIds } from '../../src/import/assign.js';
import type { LiveAccount, LiveItem } from '../../src/import/fetch.js';
import type { Kind } from '../../src/schema/kinds.js';
import { def } from './plan/fixtures.js';

const item = (kind: Kind, remoteId: string | number, body: Record<string, unknown>): LiveItem => ({ kind, remoteId, raw: body, body });

function account(items: LiveItem[]): LiveAccount {
  const map = new Map<Kind, LiveItem[]>();
  for (const i of items) map.set(i.kind, [...(map.get(i.kind) ?? []), i]);
  return { items: map, unsupported: [] };
}

const kinds: Kind[] = ['Snippet', 'TcpCheck', 'DnsCheck'];
const none = { byRemote: new Map<string, string>() };

describe('assignIds', () => {
  it('gives checks of every kind one namespace (the ownership tag has no kind in it)', () => {
    const live = account([item('TcpCheck', 'a', { name: 'API' }), item('DnsCheck', 'b', { name: 'API' })]);
    expect(assignIds('shop', kinds, live, none, []).assigned.map((a) => a.id)).toEqual(['api', 'api-2']);
  });
  it('keeps the id a check tagged for this project names, before slugging other names', () => {
    const live = account([item('TcpCheck', 'a', { name: 'Legacy', tags: [] }), item('TcpCheck', 'b', { name: 'Other', tags: ['mac:shop/legacy'] })]);
    expect(assignIds('shop', kinds, live, none, []).assigned.map((a) => [a.item.remoteId, a.id])).toEqual([
      ['a', 'legacy-2'],
      ['b', 'legacy'],
    ]);
  });
  it('never reuses an id the project defines', () => {
    const live = account([item('Snippet', 1, { name: 'Setup', script: 'x' })]);
    const defs = [def('Snippet', 'setup', { name: 'Older setup', script: 'y' })];
    expect(assignIds('shop', kinds, live, none, defs).assigned[0].id).toBe('setup-2');
  });
  it('leaves out what the project defines, what another project owns and what the plan could not tell apart', () => {
    const live = account([
      item('Snippet', 1, { name: 'Setup', script: 'a' }),
      item('Snippet', 2, { name: 'Setup', script: 'b' }),
      item('TcpCheck', 'c', { name: 'Billing', tags: ['mac:billing/db'] }),
      item('TcpCheck', 'd', { name: 'Defined', tags: ['mac:shop/defined'] }),
    ]);
    const r = assignIds('shop', kinds, live, { byRemote: new Map([['TcpCheck/d', 'defined']]) }, []);
    expect(r.assigned.map((a) => a.id)).toEqual(['setup']);
    expect(r.alreadyDefined).toBe(1);
    expect(r.skipped.map((s) => [s.remoteId, s.reason])).toEqual([
      [2, 'same name as Snippet/setup; mac could not tell them apart (rename or remove one in the account)'],
      ['c', 'managed by project "billing" (tag mac:billing/...)'],
    ]);
  });
  it('skips a resource whose text would be read as an environment reference, but not for a script written to a file', () => {
    const live = account([
      item('Snippet', 1, { name: 'Template', script: 'const x = `${{a: 1}.a}`;' }),
      item('DnsCheck', 'e', { name: 'DNS', localSetupScript: 'const y = `${{b: 2}.b}`;' }),
    ]);
    const r = assignIds('shop', kinds, live, none, []);
    expect(r.assigned.map((a) => a.id)).toEqual(['template']);
    expect(r.skipped[0].reason).toBe('localSetupScript contains "${{", which a definition reads as an environment reference (there is no escape for it)');
  });
  it('skips a multi-step check without a script (a definition requires one)', () => {
    const live = account([item('MultiStepCheck', 'm', { name: 'Empty', script: null })]);
    const r = assignIds('shop', ['MultiStepCheck'], live, none, []);
    expect(r.assigned).toEqual([]);
    expect(r.skipped[0].reason).toBe('it has no script, which a MultiStepCheck definition requires');
  });
});
