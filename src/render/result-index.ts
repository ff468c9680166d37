import type { ApplyResult } from '../apply/result.js';
import { renderResultJson } from './result-json.js';
import { renderResultMarkdown } from './result-markdown.js';
import { renderResultText, type ResultColors } from './result-text.js';

/** The output formats of `mac apply`. */
export const RESULT_FORMATS = ['text', 'markdown', 'json'] as const;

/** One output format of `mac apply`. */
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/** Renders an apply result in the chosen format (colours apply to text only). */
export function renderResult(result: ApplyResult, format: ResultFormat, colors?: ResultColors): string {
  if (format === 'json') return renderResultJson(result);
  if (format === 'markdown') return renderResultMarkdown(result);
  return renderResultText(result, colors);
}
