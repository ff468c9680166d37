import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_KINDS as KINDS_OF_CHECKS } from '../../src/schema/kinds.js';
import type { Served } from '../helpers/serve.js';
import { macIn, startServeIn } from '../helpers/mac-inprocess.js';
import { listAllOf } from '../e2e/apply-fixtures.js';

// Sets diff as membership: one tag added to `defaults.check.tags` of the examples is one `add`
// per check in the JSON plan and one `+ tags` line per check in the text, and applying that
// saved plan converges.

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const env = { SHOP_STRIPE_KEY: 'sk_test_sets_e2e' };
const CHECK_KINDS: readonly string[] = KINDS_OF_CHECKS;

type PlanDoc = { summary: Record<string, number>; changes: Array<{ action: string; kind: string; id: string; patch: Array<Record<string, unknown>> }> };

let served: Served;
let dir: string;
beforeAll(async () => {
  served = await startServeIn(['--no-runs']);
  dir = join(mkdtempSync(join(tmpdir(), 'mac-sets-')), 'project');
  cpSync(EXAMPLES, dir, { recursive: true });
  const r = await macIn(served, ['apply', dir, '--yes'], { env, timeoutMs: 90_000 });
  expect(r.code, r.stdout + r.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await served?.stop();
});

/** Rewrites `defaults.check.tags` of the copied mac.config.yaml. */
function setDefaultTags(tags: string[]): void {
  const file = join(dir, 'mac.config.yaml');
  const text = readFileSync(file, 'utf8');
  const next = text.replace(/^(\s+tags: )\[[^\]]*\]$/m, `$1[${tags.join(', ')}]`);
  expect(next, 'examples/mac.config.yaml sets defaults.check.tags on one line').not.toBe(text);
  writeFileSync(file, next);
}

describe('sets as sets (examples project)', () => {
  it('adding one default tag is exactly one add op and one "+ tags" line per check; the saved plan applies and converges', async () => {
    const checks = (await listAllOf<{ tags: string[] }>(served, '/v1/checks')).filter((c) => c.tags.some((t) => t.startsWith('mac:shop/')));
    expect(checks.length).toBeGreaterThan(3);
    setDefaultTags(['team-shop', 'team-platform']);

    const json = await macIn(served, ['plan', dir, '--format', 'json'], { env, timeoutMs: 90_000 });
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as PlanDoc;
    const updates = plan.changes.filter((c) => c.action === 'update');
    expect(updates.map((c) => c.kind).every((k) => CHECK_KINDS.includes(k))).toBe(true);
    expect(updates).toHaveLength(checks.length);
    for (const c of updates) {
      expect(c.patch, `${c.kind}/${c.id}`).toHaveLength(1);
      expect(c.patch[0]).toMatchObject({ op: 'add', value: 'team-platform', label: 'team-platform' });
      expect(c.patch[0].path).toMatch(/^\/tags\/\d+$/);
    }

    const text = await macIn(served, ['plan', dir], { env, timeoutMs: 90_000 });
    expect(text.code, text.stderr).toBe(0);
    const tagLines = text.stdout.split('\n').filter((l) => /\btags\b/.test(l));
    expect(tagLines).toHaveLength(checks.length);
    expect(tagLines.every((l) => l.trim() === '+ tags: "team-platform"')).toBe(true);

    const planFile = join(dir, '..', 'plan.json');
    const saved = await macIn(served, ['plan', dir, '--out', planFile], { env, timeoutMs: 90_000 });
    expect(saved.code, saved.stderr).toBe(0);
    const applied = await macIn(served, ['apply', planFile, '--yes'], { env, timeoutMs: 90_000 });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Convergence: ${checks.length} objects re-read, no difference left`);
    const after = await macIn(served, ['plan', dir, '--detailed-exitcode'], { env, timeoutMs: 90_000 });
    expect(after.code, after.stdout).toBe(0);
    const live = (await listAllOf<{ tags: string[] }>(served, '/v1/checks')).filter((c) => c.tags.some((t) => t.startsWith('mac:shop/')));
    expect(live.every((c) => c.tags.filter((t) => t === 'team-platform').length === 1)).toBe(true);
  }, 240_000);

  it('removing it again is one remove op (with its old value) and one "- tags" line per check; a subscription reads by logical id', async () => {
    setDefaultTags(['team-shop']);
    const db = join(dir, 'checks', 'databases.yaml');
    const yaml = readFileSync(db, 'utf8');
    const edited = yaml.replace('alertChannels: [oncall-email, ops-webhook]', 'alertChannels: [oncall-email]');
    expect(edited).not.toBe(yaml);
    writeFileSync(db, edited);

    const plan = JSON.parse((await macIn(served, ['plan', dir, '--format', 'json'], { env, timeoutMs: 90_000 })).stdout) as PlanDoc;
    const updates = plan.changes.filter((c) => c.action === 'update');
    for (const c of updates) {
      const tagOps = c.patch.filter((op) => String(op.path).startsWith('/tags'));
      expect(tagOps, `${c.kind}/${c.id}`).toEqual([{ op: 'remove', path: expect.stringMatching(/^\/tags\/\d+$/), oldValue: 'team-platform', label: 'team-platform' }]);
    }
    const withSub = updates.filter((c) => c.patch.some((op) => String(op.path).startsWith('/alertChannelSubscriptions/')));
    expect(withSub).toHaveLength(1);
    expect(withSub[0].patch.find((op) => String(op.path).startsWith('/alertChannelSubscriptions/'))).toMatchObject({ op: 'remove', label: 'ops-webhook', oldValue: { alertChannelId: expect.any(Number) } });

    const text = await macIn(served, ['plan', dir], { env, timeoutMs: 90_000 });
    expect(text.stdout.split('\n').filter((l) => l.trim() === '- tags: "team-platform"')).toHaveLength(updates.length);
    expect(text.stdout).toContain('- alertChannels: ops-webhook');
    const md = await macIn(served, ['plan', dir, '--format', 'markdown'], { env, timeoutMs: 90_000 });
    expect(md.stdout).toContain('- alertChannels: ops-webhook');

    const applied = await macIn(served, ['apply', dir, '--yes'], { env, timeoutMs: 90_000 });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await macIn(served, ['plan', dir, '--detailed-exitcode'], { env, timeoutMs: 90_000 })).code).toBe(0);
  }, 240_000);
});
