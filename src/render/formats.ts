/**
 * The output formats of the renderers, in a module of their own: the CLI's help lists them
 * without loading the renderers.
 */

/** The formats a plan renders in. */
export const PLAN_FORMATS = ['text', 'markdown', 'json'] as const;
/** One of PLAN_FORMATS. */
export type PlanFormat = (typeof PLAN_FORMATS)[number];

/** The output formats of `mac apply`. */
export const RESULT_FORMATS = ['text', 'markdown', 'json'] as const;
/** One output format of `mac apply`. */
export type ResultFormat = (typeof RESULT_FORMATS)[number];
