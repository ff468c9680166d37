import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { assemblePlan } from '../../../src/plan/index.js';
import { renderPlan } from '../../../src/render/index.js';
import { cell, code, codeLink, htmlCode } from '../../../src/render/md-escape.js';
import { expectInert } from '../../helpers/markup.js';
import { def, live, liveTcp, project } from '../plan/fixtures.js';

const plain = pc.createColors(false);
const EVIL = '</details><!-- mac-plan -->![x](http://evil) @octocat\n\n| a | b |\n```';

describe('markdown escaping', () => {
  it('code spans hold any text: backticks get a longer delimiter, newlines fold, edges are padded', () => {
    expect(code('a')).toBe('`a`');
    expect(code('a `b` c')).toBe('``a `b` c``');
    expect(code('`x')).toBe('`` `x ``');
    expect(code('a\n\nb')).toBe('`a  b`');
    expect(code('')).toBe('');
    expect(cell('a|b')).toBe('`a\\|b`');
    expect(htmlCode('</details><!--')).toBe('<code>&lt;/details&gt;&lt;!--</code>');
    expect(codeLink('x', 'https://h/a)b(c d')).toBe('[`x`](https://h/a%29b%28c%20d)');
  });

  it('mac plan --format markdown shows a hostile name, id, value, note and path as text only', () => {
    const plan = assemblePlan({
      project: project([
        def('TcpCheck', 'db', { name: EVIL, request: { hostname: 'db.internal', port: 5432 } }, { file: `checks/${EVIL}.yaml`, line: 3 }),
        def('Snippet', 'evil-snippet', { name: 'evil', script: EVIL }, { file: 'snippets.yaml', line: 1 }),
      ]),
      live: live({ TcpCheck: [liveTcp('1111', 'DB', ['mac:shop/db']), liveTcp('2222', EVIL, ['team'])], Snippet: [] }),
      apiUrl: 'http://127.0.0.1:4010',
      prune: false,
      now: new Date('2026-02-03T04:05:06.000Z'),
    });
    plan.warnings.push(`warning ${EVIL}`);
    const out = renderPlan(plan, 'markdown', plain);
    expect(out).toContain('<code>&lt;/details&gt;&lt;!-- mac-plan --&gt;![x](http://evil) @octocat  | a | b | ```</code>');
    expectInert(out, 0);
  });
});
