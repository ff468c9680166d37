import { describe, expect, it } from 'vitest';
import { testServer } from './client.js';

// `/v1/maintenance-windows` (reference MaintenanceWindowCreate / MaintenanceWindow, issue 25).

const body = (over: Record<string, unknown> = {}) => ({
  name: 'Nightly DB upgrade',
  tags: ['db'],
  startsAt: '2030-01-05T02:00:00+01:00',
  endsAt: '2030-01-05T04:00:00+01:00',
  repeatUnit: null,
  ...over,
});

describe('/v1/maintenance-windows', () => {
  it('creates with the reference defaults, reads, merges a PUT, lists and deletes', async () => {
    const t = testServer();
    const res = await t.call('POST', '/v1/maintenance-windows', body({ id: 99, created_at: 'x' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: 1,
      name: 'Nightly DB upgrade',
      tags: ['db'],
      startsAt: '2030-01-05T01:00:00.000Z',
      endsAt: '2030-01-05T03:00:00.000Z',
      repeatInterval: null,
      repeatUnit: null,
      repeatEndsAt: null,
      timezone: null,
      description: null,
      pauseAllChecks: false,
      silenceAlertsTags: [],
      silenceAllAlerts: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: null,
    });
    expect((await t.call('GET', '/v1/maintenance-windows/1')).body).toEqual(res.body);

    // PUT merges: only the fields sent change; the rules run on the merged window.
    const put = await t.call('PUT', '/v1/maintenance-windows/1', { repeatUnit: 'WEEK', repeatInterval: 2, repeatEndsAt: '2030-03-01T12:00:00Z' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Nightly DB upgrade', tags: ['db'], repeatUnit: 'WEEK', repeatInterval: 2, repeatEndsAt: '2030-03-01', created_at: res.body.created_at });
    expect(put.body.updated_at).not.toBeNull();

    await t.call('POST', '/v1/maintenance-windows', body({ name: 'second', startsAt: '2031-01-01', endsAt: '2031-01-02' }));
    const list = await t.call('GET', '/v1/maintenance-windows?limit=1&page=2');
    expect(list.body.map((w: any) => w.name)).toEqual(['second']);
    expect(list.headers.get('content-range')).toBe('1-1/2');
    const filtered = await t.call('GET', '/v1/maintenance-windows?startsAt[gte]=2031-01-01');
    expect(filtered.body.map((w: any) => w.name)).toEqual(['second']);
    expect((await t.call('GET', '/v1/maintenance-windows?endsAt[lt]=2030-06-01')).body.map((w: any) => w.id)).toEqual([1]);

    expect((await t.call('DELETE', '/v1/maintenance-windows/1')).status).toBe(204);
    expect((await t.call('GET', '/v1/maintenance-windows/1')).status).toBe(404);
    expect((await t.call('GET', '/v1/maintenance-windows')).headers.get('content-range')).toBe('0-0/1');
  });

  it('another account sees 404 for the id and an empty list; a read-only key cannot write', async () => {
    const t = testServer();
    const { id } = (await t.call('POST', '/v1/maintenance-windows', body())).body;
    for (const [method, payload] of [['GET'], ['PUT', { name: 'taken' }], ['DELETE']] as const) {
      expect((await t.call(method, `/v1/maintenance-windows/${id}`, payload, { key: 'other-key' })).status).toBe(404);
    }
    expect((await t.call('GET', '/v1/maintenance-windows', undefined, { key: 'other-key' })).body).toEqual([]);
    expect((await t.call('POST', '/v1/maintenance-windows', body(), { key: 'reader-key' })).status).toBe(403);
    expect((await t.call('GET', `/v1/maintenance-windows/${id}`)).body.name).toBe('Nightly DB upgrade');
  });

  it('answers 400 with the field paths of invalid bodies', async () => {
    const t = testServer();
    const keys = async (b: unknown, method = 'POST', path = '/v1/maintenance-windows') => {
      const res = await t.call(method, path, b);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.attributes.keys as string[];
    };
    expect(await keys({ tags: 'db' })).toEqual(['name', 'tags', 'startsAt', 'endsAt', 'repeatUnit']);
    expect(await keys(body({ startsAt: 'tomorrow' }))).toEqual(['startsAt']);
    expect(await keys(body({ startsAt: '0001-01-01', repeatUnit: 'DAY', repeatInterval: 1 }))).toEqual(['startsAt']);
    expect(await keys(body({ endsAt: '2030-01-05T01:00:00Z' }))).toEqual(['endsAt']);
    expect(await keys(body({ repeatInterval: 1 }))).toEqual(['repeatUnit']);
    expect(await keys(body({ repeatUnit: 'YEAR' }))).toEqual(['repeatUnit']);
    expect(await keys(body({ repeatUnit: 'DAY', repeatInterval: 0 }))).toEqual(['repeatInterval']);
    expect(await keys(body({ repeatUnit: 'DAY', repeatEndsAt: '2030-02-01' }))).toEqual(['repeatEndsAt']);
    expect(await keys(body({ repeatUnit: 'DAY', repeatInterval: 1, repeatEndsAt: '2029-12-31' }))).toEqual(['repeatEndsAt']);
    // Occurrences longer than the repeat period would overlap.
    expect(await keys(body({ repeatUnit: 'DAY', repeatInterval: 1, endsAt: '2030-01-06T02:00:00Z' }))).toEqual(['endsAt']);
    expect(await keys(body({ timezone: '+05:00', pauseAllChecks: true }))).toEqual(['timezone', 'pauseAllChecks']);
    expect(await keys(body({ timezone: 'Mars/Olympus_Mons' }))).toEqual(['timezone']);
    // repeatEndsAt is a date of the window's zone: 23:30 in New York on Jan 4 is Jan 5 in UTC.
    const ny = body({ startsAt: '2030-01-05T04:30:00Z', endsAt: '2030-01-05T05:00:00Z', repeatUnit: 'DAY', repeatInterval: 1, repeatEndsAt: '2030-01-04' });
    expect(await keys(ny)).toEqual(['repeatEndsAt']);
    expect((await t.call('POST', '/v1/maintenance-windows', { ...ny, timezone: 'America/New_York' })).body).toMatchObject({ timezone: 'America/New_York', repeatEndsAt: '2030-01-04' });
    expect(await keys(body({ name: 'x'.repeat(201), tags: Array(101).fill('t') }))).toEqual(['name', 'tags']);
    const { id } = (await t.call('POST', '/v1/maintenance-windows', body())).body;
    // A PUT is checked merged with what is stored.
    expect(await keys({ startsAt: '2030-01-05T05:00:00Z' }, 'PUT', `/v1/maintenance-windows/${id}`)).toEqual(['endsAt']);
    // Validation precedes lookup (api-decisions §1.1).
    expect(await keys({ repeatUnit: 'YEAR' }, 'PUT', '/v1/maintenance-windows/999')).toEqual(['repeatUnit']);
    expect(await keys(undefined, 'GET', '/v1/maintenance-windows/abc')).toEqual(['id']);
    expect(await keys(undefined, 'GET', '/v1/maintenance-windows?startsAt[gt]=soon')).toEqual(['startsAt[gt]']);
  });
});
