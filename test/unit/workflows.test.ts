import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { starterFiles, WORKFLOWS } from '../../src/cli/commands/init.js';

// The properties that keep a reviewed plan from being dropped, checked on the YAML of the
// example workflows and of what `mac init --github` writes (the same templates, pointed at the
// project's directory), and held against docs/action.md.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/action.md'), 'utf8');
const SAME_REPO = 'github.event.pull_request.head.repo.full_name == github.repository';
const FORK = 'github.event.pull_request.head.repo.full_name != github.repository';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  if?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  if?: string;
  environment?: string;
  'timeout-minutes'?: number;
  concurrency?: unknown;
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  jobs: Record<string, Job>;
}

const work = mkdtempSync(join(tmpdir(), 'mac-workflows-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function sources(): Promise<Array<{ label: string; read: (name: string) => Workflow }>> {
  const examples = (name: string) => parse(readFileSync(join(ROOT, 'examples/workflows', name), 'utf8')) as Workflow;
  const files = await starterFiles({ root: join(work, 'ops'), cwd: work, project: 'ops', github: true });
  const written = (name: string) => parse(files.find((f) => f.path === join(work, '.github', 'workflows', name))!.text) as Workflow;
  return [
    { label: 'examples/workflows', read: examples },
    { label: 'mac init --github', read: written },
  ];
}

const isMac = (s: Step) => s.uses !== undefined && !s.uses.startsWith('actions/');

describe('the workflows never drop a reviewed plan', async () => {
  for (const { label, read } of await sources()) {
    describe(label, () => {
      it('are the three workflows', () => {
        for (const name of WORKFLOWS) expect(read(name).jobs, name).toBeTruthy();
      });

      it('mac-plan.yml: one concurrency group per pull request, cancelling older plan runs', () => {
        const wf = read('mac-plan.yml');
        expect(Object.keys(wf.on)).toEqual(['pull_request']);
        expect(wf.concurrency?.group).toMatch(/\$\{\{ github\.event\.pull_request\.number \}\}/);
        expect(wf.concurrency?.['cancel-in-progress']).toBe(true);
      });

      it('mac-plan.yml: a fork pull request succeeds with a notice; nothing else of the job runs for it', () => {
        const [job] = Object.values(read('mac-plan.yml').jobs);
        const notice = job.steps.filter((s) => s.if === FORK);
        expect(notice).toHaveLength(1);
        expect(notice[0].run).toMatch(/^echo "::notice title=mac plan skipped::.*fork.*no secrets/m);
        expect(notice[0].run).toContain('$GITHUB_STEP_SUMMARY');
        for (const s of job.steps.filter((x) => x !== notice[0])) expect(s.if, s.name ?? s.uses).toBe(SAME_REPO);
        // The artifact step would fail a skipped run (if-no-files-found: error): it is skipped with the plan.
        expect(job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.['if-no-files-found']).toBe('error');
      });

      it('mac-apply.yml: queued, never cancelled: no concurrency group, mac\'s apply lock orders the runs', () => {
        const wf = read('mac-apply.yml');
        expect(wf.concurrency).toBeUndefined();
        const [job] = Object.values(wf.jobs);
        expect(job.concurrency).toBeUndefined();
        expect(job.if).toBe("github.ref == 'refs/heads/main'");
        const apply = job.steps.find((s) => s.id === 'apply')!;
        expect(isMac(apply)).toBe(true);
        expect(apply.with?.command).toBe('apply');
        expect(apply.with?.['plan-file']).toBe('${{ steps.reviewed.outputs.file }}');
        // Long enough for a burst of merges, shorter than the job's own timeout.
        expect(Number(apply.with?.['lock-timeout'])).toBeGreaterThanOrEqual(600);
        expect(Number(apply.with?.['lock-timeout'])).toBeLessThan(job['timeout-minutes']! * 60);
      });

      it('mac-apply.yml: a stale plan is refused, then the merged commit is planned again', () => {
        const [job] = Object.values(read('mac-apply.yml').jobs);
        const replan = job.steps.find((s) => s.if === "failure() && steps.apply.outputs.stale == 'true'");
        expect(replan && isMac(replan)).toBe(true);
        expect(replan!.with).toMatchObject({ command: 'plan', comment: false });
        expect(replan!.with?.['plan-file']).toBeUndefined();
        expect(job.steps.indexOf(replan!)).toBeGreaterThan(job.steps.findIndex((s) => s.id === 'apply'));
      });

      it('mac-drift.yml and mac-plan.yml read with the read-only key; only the apply has the key that writes', () => {
        const keyOf = (name: string) => Object.values(read(name).jobs).flatMap((j) => j.steps.filter(isMac).map((s) => s.with?.['api-key']));
        expect(keyOf('mac-drift.yml')).toEqual(['${{ secrets.MAC_READ_ONLY_API_KEY }}']);
        expect(keyOf('mac-plan.yml')).toEqual(['${{ secrets.MAC_READ_ONLY_API_KEY }}']);
        expect(new Set(keyOf('mac-apply.yml'))).toEqual(new Set(['${{ secrets.MAC_API_KEY }}']));
        // The drift job is not in the environment whose MAC_API_KEY may write.
        for (const job of Object.values(read('mac-drift.yml').jobs)) expect(job.environment).toBeUndefined();
        for (const job of Object.values(read('mac-apply.yml').jobs)) expect(job.environment).toBe('production');
      });

      it('never pass the repository name through an input (inputs are masked values; links would read ***)', () => {
        for (const name of WORKFLOWS) {
          for (const job of Object.values(read(name).jobs)) {
            for (const s of job.steps.filter(isMac)) expect(JSON.stringify(s.with), `${name} ${s.name}`).not.toMatch(/github\.repository|GITHUB_REPOSITORY/);
          }
        }
      });

      it('allow *.mac.ts only where the code is reviewed: auto on pull requests, allow only on default-branch jobs', () => {
        const [plan] = Object.values(read('mac-plan.yml').jobs);
        expect(plan.steps.filter(isMac).map((s) => s.with?.typescript)).toEqual(['auto']);
        for (const name of ['mac-apply.yml', 'mac-drift.yml']) {
          for (const job of Object.values(read(name).jobs)) {
            expect(job.if, name).toBe("github.ref == 'refs/heads/main'");
            for (const s of job.steps.filter(isMac)) expect(s.with?.typescript, name).toBe('allow');
          }
        }
      });
    });
  }
});

describe('docs/action.md says what the workflows do', () => {
  const text = (name: string) => readFileSync(join(ROOT, 'examples/workflows', name), 'utf8');
  it('quotes the plan workflow\'s concurrency block as it is', () => {
    const block = /^concurrency:\n(?: {2}.*\n)+/m.exec(text('mac-plan.yml'))![0];
    expect(DOC).toContain(block);
  });

  it('explains why the apply workflow has no concurrency group, and names the keys and inputs they use', () => {
    expect(text('mac-apply.yml')).not.toMatch(/^concurrency:/m);
    expect(DOC).toMatch(/no concurrency group/i);
    expect(DOC).toContain('MAC_READ_ONLY_API_KEY');
    expect(DOC).toContain('`lock-timeout`');
    expect(DOC).toContain('`stale`');
    expect(DOC).toMatch(/fork.*no secrets/i);
  });
});
