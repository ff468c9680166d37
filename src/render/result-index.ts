import type { ApplyResult } from '../apply/result.js';
import { renderResultJson } from './result-json.js';
import { renderResultMarkdown } from './result-markdown.js';
import { renderResultText, type ResultColors } from './result-text.js';

export { RESULT_FORMATS, type ResultFormat } from './formats.js';
import type { ResultFormat } from './formats.js';

/** Renders an apply result in the chosen format (colours apply to text only). */
export function renderResult(result: ApplyResult, format: ResultFormat, colors?: ResultColors): string {
  if (format === 'json') return renderResultJson(result);
  if (format === 'markdown') return renderResultMarkdown(result);
  return renderResultText(result, colors);
}
