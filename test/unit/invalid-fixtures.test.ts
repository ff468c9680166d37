import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/config/load.js';
import { FIXTURES, expectedDefect, fixtureCases } from '../helpers/fixtures.js';

// Each folder of test/fixtures/invalid is a project with exactly one defect, marked in its source
// with `# <- <field path>` on the line the diagnostic must name (see test/helpers/fixtures.ts).
const cases = fixtureCases('invalid');

describe('invalid projects: one diagnostic each, at the marked file:line and field path', () => {
  it('has a corpus of at least 40 projects', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', async (name) => {
    const dir = join(FIXTURES, 'invalid', name);
    const expected = expectedDefect(dir);
    const project = await loadProject(dir, { env: {} });
    const errors = project.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => `${d.file}:${d.line} ${d.path}`)).toEqual([`${expected.file}:${expected.line} ${expected.path}`]);
    expect(errors[0].message.length).toBeGreaterThan(0);
  });
});
