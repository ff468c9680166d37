/** Schema of mac.config.yaml. */
import { z } from 'zod';
import { doc } from './fields.js';
import { CheckDefaultsSchema } from './checks.js';

/** Globs that select definition files when `include` is not set. */
export const DEFAULT_INCLUDE = ['**/*.yaml', '**/*.yml', '**/*.mac.ts'];

/** mac.config.yaml at the project's root. */
export const ProjectConfigSchema = z.strictObject({
  project: doc(
    z.string().regex(/^[a-z0-9-]+$/, 'must match [a-z0-9-]+'),
    'Project name; scopes the ownership tag mac:<project>/<id> of every check',
  ),
  include: doc(
    z.array(z.string().min(1)).min(1).optional(),
    'Globs (relative to this file) of definition files; mac.config.yaml, node_modules and dot-folders never count',
    DEFAULT_INCLUDE,
  ),
  env: doc(
    z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)')).optional(),
    'The only environment variables ${{ env.NAME }} may read; MAC_*, GITHUB_TOKEN, ACTIONS_*, INPUT_* and RUNNER_* never are',
    [],
  ),
  defaults: doc(
    z.strictObject({ check: CheckDefaultsSchema.optional() }).optional(),
    'Values merged under definitions',
  ),
});

/** mac.config.yaml as written. */
export type ProjectConfigInput = z.input<typeof ProjectConfigSchema>;
