import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseInputs } from '../../src/action/inputs.js';
import { actionUses, adaptWorkflow } from '../../src/cli/commands/init.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
};
const EXAMPLES = join(ROOT, 'examples/workflows');

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
  if?: string;
  env?: Record<string, string>;
  run?: string;
}

describe('action.yml', () => {
  it('declares exactly the inputs the action reads', () => {
    const read = new Set<string>();
    parseInputs((name) => {
      read.add(name);
      return '';
    });
    expect([...read].sort()).toEqual(Object.keys(action.inputs).sort());
  });

  it('defaults github-token to the workflow token and comment to true', () => {
    expect(action.inputs['github-token'].default).toBe('${{ github.token }}');
    expect(action.inputs.comment.default).toBe('true');
    expect(Object.keys(action.outputs).sort()).toEqual(['create', 'delete', 'has-changes', 'plan-file', 'stale', 'update']);
  });

  it('parses every input and names the input a bad value came from', () => {
    const inputs = (values: Record<string, string>) => parseInputs((n) => values[n] ?? '');
    expect(inputs({})).toMatchObject({ dir: '.', comment: true, prune: false, maxDeletes: 10, command: undefined, changedSince: undefined });
    expect(inputs({ 'changed-since': 'none', prune: 'True', 'max-deletes': '0', concurrency: '4' })).toMatchObject({ changedSince: null, prune: true, maxDeletes: 0, concurrency: 4 });
    expect(() => inputs({ command: 'destroy' })).toThrow('input "command" must be one of plan, apply, got "destroy"');
    expect(() => inputs({ comment: 'yes' })).toThrow('input "comment" must be true or false, got "yes"');
    expect(() => inputs({ concurrency: '0' })).toThrow('input "concurrency" must be a whole number from 1 to 256, got "0"');
    expect(inputs({}).typescript).toBe('auto');
    expect(inputs({ typescript: 'deny' }).typescript).toBe('deny');
    expect(() => inputs({ typescript: 'no' })).toThrow('input "typescript" must be one of allow, deny, auto, got "no"');
    expect(inputs({ 'only-changed-since': 'main' })).toMatchObject({ onlyChangedSince: 'main', changedSince: null });
    expect(() => inputs({ 'only-changed-since': 'main', 'changed-since': 'main' })).toThrow('inputs "changed-since" and "only-changed-since" exclude each other');
    expect(inputs({ 'plan-file': 'plan/mac-plan.json' }).planFile).toBe('plan/mac-plan.json');
    expect(() => inputs({ 'plan-file': 'p.json', command: 'plan' })).toThrow('input "plan-file" applies a saved plan');
    expect(inputs({}).lockTimeout).toBe(300);
    expect(inputs({ 'lock-timeout': '1800' }).lockTimeout).toBe(1800);
    expect(() => inputs({ 'lock-timeout': '-1' })).toThrow('input "lock-timeout" must be a whole number from 0 to 86400');
    expect(inputs({}).accountHeader).toBeUndefined();
    expect(inputs({ 'account-header': 'X-Checkly-Account' }).accountHeader).toBe('x-checkly-account');
    expect(() => inputs({ 'account-header': 'authorization' })).toThrow('input "account-header" cannot be "authorization"');
  });
});

describe('example workflows', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yml'));

  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const uses = actionUses(pkg);

  it('name the Action by package.json: its repository at the release tag v<version>', () => {
    expect(uses).toBe(`${/github\.com\/([^/]+\/[^/.]+)/.exec(pkg.repository.url)![1]}@v${pkg.version}`);
    for (const file of files) {
      const lines = readFileSync(join(EXAMPLES, file), 'utf8').split('\n').filter((l) => /^\s+uses: /.test(l) && !/uses: actions\//.test(l));
      expect(lines.length, file).toBeGreaterThan(0);
      for (const l of lines) expect(l.trim(), file).toBe(`uses: ${uses}`);
    }
  });

  it('reads the repository in the forms package.json allows, and mac init writes it', () => {
    expect(actionUses({ version: '1.2.3', repository: 'github:acme/mac' })).toBe('acme/mac@v1.2.3');
    expect(actionUses({ version: '1.2.3', repository: 'acme/mac' })).toBe('acme/mac@v1.2.3');
    expect(actionUses({ version: '1.2.3', repository: { url: 'git+ssh://git@github.com:acme/mac.git' } })).toBe('acme/mac@v1.2.3');
    expect(() => actionUses({ version: '1.2.3' })).toThrow('names no GitHub repository');
    const written = adaptWorkflow('      - uses: actions/checkout@v4\n        uses: old/place@v9\n        with:\n          dir: monitoring\n', 'ops', 'acme/mac@v1.2.3');
    expect(written).toBe('      - uses: actions/checkout@v4\n        uses: acme/mac@v1.2.3\n        with:\n          dir: ops\n');
  });

  it('are the three documented ones', () => {
    expect(files.sort()).toEqual(['mac-apply.yml', 'mac-drift.yml', 'mac-plan.yml']);
  });

  for (const file of files) {
    it(`${file} uses only inputs and outputs that action.yml declares`, () => {
      const wf = parse(readFileSync(join(EXAMPLES, file), 'utf8')) as { on: unknown; jobs: Record<string, { steps: Step[] }> };
      expect(wf.on).toBeTruthy();
      const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
      const macSteps = steps.filter((s) => s.uses === uses);
      expect(macSteps.length).toBeGreaterThan(0);
      for (const s of macSteps) for (const key of Object.keys(s.with ?? {})) expect(Object.keys(action.inputs)).toContain(key);
      const text = readFileSync(join(EXAMPLES, file), 'utf8');
      // Outputs read from the mac step (other steps, e.g. a download, have their own).
      const macIds = new Set(macSteps.map((s) => s.id).filter(Boolean));
      for (const m of text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) if (macIds.has(m[1])) expect(Object.keys(action.outputs)).toContain(m[2]);
      expect([...text.matchAll(/steps\.([\w-]+)\.outputs/g)].every((m) => steps.some((s) => s.id === m[1]))).toBe(true);
    });
  }
});
