import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CliContext } from '../context.js';
import { generateJsonSchemas, schemaFileText } from '../../schema/json-schema.js';

/** `mac schemas [--out DIR]`: writes the JSON Schemas of definitions and mac.config.yaml. */
export async function run(ctx: CliContext, opts: { out: string }): Promise<void> {
  const out = resolve(ctx.cwd, opts.out);
  await mkdir(out, { recursive: true });
  const schemas = generateJsonSchemas();
  for (const [name, schema] of Object.entries(schemas)) await writeFile(join(out, name), schemaFileText(schema));
  ctx.output.result(`wrote ${Object.keys(schemas).length} schemas to ${opts.out}`);
  ctx.exit(0);
}
