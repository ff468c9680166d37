import { describe, expect, it } from 'vitest';
import { buildDesired, compareObjects, normalizeLive } from '../../../src/plan/index.js';
import { canonicalJson, escape } from '../../../src/json/values.js';
import { def, liveTcp } from './fixtures.js';

// The plan copies objects only where it must (it plans 12,000 resources in seconds); these pin
// down that the copies it skips never let one stage change another stage's objects.
const resolveNothing = (ref: string) => ({ $ref: ref });
const frozenCopy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('plan stages leave their inputs intact', () => {
  it('buildDesired without secrets: the definition is untouched and masked equals body', () => {
    const spec = { name: 'DB', tags: ['a'], request: { hostname: 'db', port: 5432, assertions: [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '5' }] } };
    const before = frozenCopy(spec);
    const d = buildDesired(def('TcpCheck', 'db', spec, { refs: { alertChannels: ['ops'] } }), 'shop', resolveNothing);
    expect(spec).toEqual(before);
    expect(d.body.tags).toEqual(['a', 'mac:shop/db']);
    expect(d.masked).toEqual(d.body);
    expect(d.secrets).toEqual([]);
  });

  it('buildDesired with a secret: the definition keeps its value, only masked hides it', () => {
    const spec = { key: 'TOKEN', value: 's3cret', secret: true };
    const d = buildDesired(def('EnvironmentVariable', 'TOKEN', spec, { secretPaths: ['/value'] }), 'shop', resolveNothing);
    expect(spec.value).toBe('s3cret');
    expect(d.body.value).toBe('s3cret');
    expect(d.masked.value).toBe('(sensitive)');
  });

  it('compareObjects leaves both sides intact, with and without write-only or unmanaged fields', () => {
    const tcp = buildDesired(def('TcpCheck', 'x', { name: 'DB', request: { hostname: 'db.internal', port: 5432 } }), 'shop', resolveNothing).body;
    const live = normalizeLive('TcpCheck', liveTcp('u', 'DB', ['mac:shop/x'], { frequency: 5 }));
    const [tcpBefore, liveBefore] = [frozenCopy(tcp), frozenCopy(live)];
    expect(compareObjects('TcpCheck', tcp, live, []).patch).toEqual([{ op: 'replace', path: '/frequency', value: 10, oldValue: 5 }]);
    expect([tcp, live]).toEqual([tcpBefore, liveBefore]);

    const flow = { ...buildDesired(def('MultiStepCheck', 'f', { name: 'flow', script: 'x()' }), 'shop', resolveNothing).body, scriptPath: 'a.js' };
    const flowBefore = frozenCopy(flow);
    compareObjects('MultiStepCheck', flow, { ...flow, scriptPath: 'b.js' }, []);
    expect(flow).toEqual(flowBefore);

    // A live field the definition leaves unmanaged is removed from the live side before comparing.
    const liveWithOffset = normalizeLive('TcpCheck', liveTcp('u', 'DB', ['mac:shop/x'], { frequencyOffset: 7 }));
    const offsetBefore = frozenCopy(liveWithOffset);
    expect(compareObjects('TcpCheck', tcp, liveWithOffset, []).patch).toEqual([]);
    expect(liveWithOffset).toEqual(offsetBefore);
  });
});

describe('JSON helpers', () => {
  it('canonicalJson sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ x: [1, 2] })).not.toBe(canonicalJson({ x: [2, 1] }));
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('escape handles plain, "~" and "/" segments', () => {
    expect(escape('frequency')).toBe('frequency');
    expect(escape('a/b~c')).toBe('a~1b~0c');
  });
});
