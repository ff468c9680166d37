import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { CliContext } from '../context.js';
import { UsageError } from '../../errors.js';
// The package's name: what a definitions file imports, and where under node_modules the `$schema` lines point.
import { PACKAGE_NAME } from '../../config/ts-source.js';
import { loadValid } from '../options.js';

export interface InitFlags {
  github?: boolean;
  typescript?: boolean;
  project?: string;
}

/** The files of a starter project, relative to its directory, and the workflows relative to the working directory. */
export interface InitFile {
  /** Absolute path to write. */
  path: string;
  /** The text; empty for the appended .gitignore, whose missing entries are computed when written. */
  text: string;
  /** Appended to an existing file (only .gitignore) rather than written. */
  append?: boolean;
}

/** Plan files `mac plan --out` writes in a starter project; never committed. */
export const GITIGNORE_ENTRIES = ['*.plan.json', 'plan.json'];

/** `mac init [DIR] [--github] [--project NAME]`: writes a starter project; never overwrites a file. */
export async function run(ctx: CliContext, dir: string, flags: InitFlags): Promise<void> {
  const { output } = ctx;
  const root = resolve(ctx.cwd, dir);
  const project = flags.project ?? slugify(basename(root));
  if (!/^[a-z0-9-]+$/.test(project)) {
    throw new UsageError(`project name "${project}" must match [a-z0-9-]+`, { hint: 'pass --project NAME' });
  }
  const typescript = flags.typescript === true;
  const files = await starterFiles({ root, cwd: ctx.cwd, project, github: flags.github === true, typescript });
  // Nothing is written when any target exists: a half-written starter project helps nobody.
  const existing: string[] = [];
  for (const f of files) if (!f.append && (await exists(f.path))) existing.push(shown(ctx.cwd, f.path));
  if (existing.length > 0) {
    throw new UsageError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; nothing was written`, {
      hint: 'mac init never overwrites a file: choose another DIR or move them away',
    });
  }
  for (const f of files) {
    await mkdir(dirname(f.path), { recursive: true });
    if (f.append) {
      const before = (await exists(f.path)) ? await readFile(f.path, 'utf8') : '';
      const missing = GITIGNORE_ENTRIES.filter((e) => !before.split(/\r?\n/).includes(e));
      if (missing.length === 0) continue;
      const separator = before === '' ? '' : before.endsWith('\n') ? '\n' : '\n\n';
      await writeFile(f.path, `${before}${separator}# plan files written by mac plan --out\n${missing.join('\n')}\n`, 'utf8');
    } else {
      await writeFile(f.path, f.text, { encoding: 'utf8', flag: 'wx' });
    }
    output.info(`wrote ${shown(ctx.cwd, f.path)}`);
  }
  // What was written validates (the only *.mac.ts is the one just written); a failure here is a bug of init.
  await loadValid(ctx, root, typescript, 'the starter project needs fixing by hand');
  const target = shown(ctx.cwd, root);
  const arg = target === '.' ? '' : ` ${quote(target)}`;
  output.result(
    [
      `project "${project}" written to ${target}. Next:`,
      `  npx mac validate${arg}     # check the definitions, no request made`,
      `  npx mac plan${arg}         # compare with the account (MAC_API_URL, MAC_API_KEY; or a local "npx mac serve")`,
      `  npx mac apply${arg}        # make the account match`,
      ...(typescript ? [`  npx tsc -p ${target === '.' ? '.' : quote(target)}       # type-check the *.mac.ts files (npm install --save-dev typescript)`] : []),
    ].join('\n'),
  );
}

/** The name of a project from a directory name: lower-case, runs of other characters as one '-'. */
export function slugify(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug === '' ? 'monitoring' : slug;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function shown(cwd: string, path: string): string {
  return relative(cwd, path) || '.';
}

function quote(s: string): string {
  return /^[\w./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The `# yaml-language-server: $schema=...` line of a file, pointing into node_modules of the working directory. */
function schemaLine(cwd: string, file: string, schema: string): string {
  const target = join(cwd, 'node_modules', PACKAGE_NAME, 'schemas', schema);
  let rel = relative(dirname(file), target).split(sep).join('/');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return `# yaml-language-server: $schema=${rel}`;
}

// A project at the repository's root would otherwise read every YAML file of the repository.
const ROOT_INCLUDE = `# The definition files (the default, every *.yaml, *.yml and *.mac.ts, would take in the whole repository).
include: ["alert-channels.yaml", "checks/**/*.yaml", "checks/**/*.mac.ts"]
`;

/** Every file `mac init` writes, with its text. Pure but for reading the workflow templates. */
export async function starterFiles(o: { root: string; cwd: string; project: string; github: boolean; typescript?: boolean }): Promise<InitFile[]> {
  const { root, cwd, project } = o;
  const at = (p: string) => join(root, p);
  const files: InitFile[] = [
    {
      path: at('mac.config.yaml'),
      text: `${schemaLine(cwd, at('mac.config.yaml'), 'mac-config.schema.json')}
# The project: every check mac creates is tagged mac:${project}/<id>, and only those are ever touched.
project: ${project}
${root === cwd ? ROOT_INCLUDE : ''}defaults:
  check:
    frequency: 10
    locations: [eu-west-1]
    alertChannels: [oncall-email]
# The only environment variables \${{ env.NAME }} may read, e.g. [SLACK_WEBHOOK_URL]
# (MAC_*, GITHUB_TOKEN, ACTIONS_*, INPUT_* and RUNNER_* never are).
env: []
`,
    },
    {
      path: at('alert-channels.yaml'),
      text: `${schemaLine(cwd, at('alert-channels.yaml'), 'definition.schema.json')}
# Where alerts go; checks name it by its id under alertChannels.
kind: AlertChannel
id: oncall-email
type: EMAIL
config:
  address: oncall@example.com
sendFailure: true
sendRecovery: true
`,
    },
    {
      path: at('checks/tcp.yaml'),
      text: `${schemaLine(cwd, at('checks/tcp.yaml'), 'definition.schema.json')}
# A TCP check: can a port be connected to (a database, a cache, an HTTPS endpoint)?
kind: TcpCheck
id: website-https
name: Website accepts HTTPS connections
request:
  hostname: example.com
  port: 443
maxResponseTime: 2000
`,
    },
    {
      path: at('checks/dns.yaml'),
      text: `${schemaLine(cwd, at('checks/dns.yaml'), 'definition.schema.json')}
# A DNS check: does a name resolve, to what, and how fast?
kind: DnsCheck
id: website-dns
name: example.com resolves
request:
  query: example.com
  recordType: A
  assertions:
    - { source: RESPONSE_CODE, comparison: EQUALS, target: NOERROR }
`,
    },
    {
      path: at('checks/heartbeat.yaml'),
      text: `${schemaLine(cwd, at('checks/heartbeat.yaml'), 'definition.schema.json')}
# A heartbeat check: a job pings its URL when it finishes; no ping within period + grace alerts.
kind: HeartbeatCheck
id: nightly-job
name: Nightly job finished
heartbeat:
  period: 1
  periodUnit: days
  grace: 2
  graceUnit: hours
`,
    },
    { path: at('.gitignore'), text: '', append: true },
  ];
  if (o.typescript) files.push(...typescriptFiles(at));
  if (o.github) {
    const dir = relative(cwd, root).split(sep).join('/') || '.';
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as PackageInfo;
    const uses = actionUses(pkg);
    for (const name of WORKFLOWS) {
      const template = await readFile(new URL(`../../../examples/workflows/${name}`, import.meta.url), 'utf8');
      files.push({ path: join(cwd, '.github', 'workflows', name), text: adaptWorkflow(template, dir, uses) });
    }
  }
  return files;
}

/**
 * `--typescript`: a typed check and the tsconfig.json that type-checks every `*.mac.ts` file of
 * the project against the package's types (`npx tsc -p DIR`; no output is written).
 */
function typescriptFiles(at: (p: string) => string): InitFile[] {
  const tsconfig = {
    compilerOptions: {
      // How Node loads the files (ESM, package exports): the package's types resolve as mac's loader resolves its code.
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ['**/*.mac.ts'],
  };
  return [
    { path: at('tsconfig.json'), text: `${JSON.stringify(tsconfig, null, 2)}\n` },
    {
      path: at('checks/api.mac.ts'),
      text: `// A check written in TypeScript: the helpers give completion, and \`npx tsc -p .\` (tsconfig.json)
// type-checks every *.mac.ts file. A *.mac.ts file is code: mac runs it when it loads the project.
import { tcpCheck } from '${PACKAGE_NAME}';

const ports = [443, 80];

export default ports.map((port) =>
  tcpCheck({
    id: \`website-port-\${port}\`,
    name: \`Website accepts connections on port \${port}\`,
    request: { hostname: 'example.com', port },
    maxResponseTime: 2000,
  }),
);
`,
    },
  ];
}

/** The workflows `--github` writes, from examples/workflows. */
export const WORKFLOWS = ['mac-plan.yml', 'mac-apply.yml', 'mac-drift.yml'] as const;

/** What package.json says of the release: where the Action lives and which version this is. */
export interface PackageInfo {
  version: string;
  repository?: string | { url?: string };
}

/**
 * The `uses:` value of the mac step in a workflow: the GitHub repository of package.json's
 * `repository` at the release tag `v<version>` (docs/action.md, "Releases"). The one place
 * the Action's address comes from; test/unit/action-metadata.test.ts holds examples/workflows to it.
 */
export function actionUses(pkg: PackageInfo): string {
  const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const m = url === undefined ? null : /github\.com[/:]([\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/.exec(url) ?? /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(url);
  if (!m) throw new Error(`package.json repository ${JSON.stringify(url)} names no GitHub repository`);
  return `${m[1]}@v${pkg.version}`;
}

/** A workflow template (written for a project in `monitoring/`) pointed at the project directory `dir` and the Action `uses`. */
export function adaptWorkflow(template: string, dir: string, uses: string): string {
  const paths = dir === '.' ? '"**"' : `"${dir}/**"`;
  return template
    .replace(/^# Copy to \.github\/workflows\/.*\n/m, '')
    .replace(/^(\s+uses: )[\w.-]+\/[\w.-]+@\S+(\s*)$/gm, (line, lead: string, tail: string) => (/^\s+uses: actions\//.test(line) ? line : `${lead}${uses}${tail}`))
    .replace(/^(\s+- )"monitoring\/\*\*"$/gm, `$1${paths}`)
    .replace(/^(\s+dir: )monitoring$/gm, `$1${/^[\w./-]+$/.test(dir) ? dir : JSON.stringify(dir)}`);
}
