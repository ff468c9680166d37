import type pc from 'picocolors';
import type { Plan } from '../plan/types.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

/** Colour helpers (identity functions when colour is off), as the Output provides them. */
export type Colors = ReturnType<typeof pc.createColors>;

export { PLAN_FORMATS, type PlanFormat } from './formats.js';
import type { PlanFormat } from './formats.js';

const RENDERERS: Record<PlanFormat, (plan: Plan, c: Colors) => string> = {
  text: renderText,
  markdown: (plan) => renderMarkdown(plan),
  // Exactly one JSON document: the plan itself, as `--out` writes it.
  json: (plan) => JSON.stringify(plan, null, 2),
};

/** Renders a plan in a format chosen by name; a pure function of the plan. */
export function renderPlan(plan: Plan, format: PlanFormat, c: Colors): string {
  return RENDERERS[format](plan, c);
}

export { renderText, renderMarkdown };
