/**
 * Colours of the public pages. A theme is the twelve colours of a status page's `themeColors`
 * (decisions §3.6); `defaultTheme` LIGHT, DARK or AUTO (following `prefers-color-scheme`).
 * The default themes meet WCAG 2.1 AA contrast (test/unit/server/pages-theme.test.ts).
 */
import { THEME_COLOR_KEYS } from '../../schema/fields.js';

/** One theme: the twelve colours. */
export type Theme = Record<(typeof THEME_COLOR_KEYS)[number], string>;
/** How a page chooses between its light and dark theme. */
export type ThemeMode = 'LIGHT' | 'DARK' | 'AUTO';

/** The light theme used when a page has no `themeColors` (and by every dashboard). */
export const DEFAULT_LIGHT: Theme = {
  bodyBackgroundColor: '#ffffff',
  headerBackgroundColor: '#1e293b',
  headerFontColor: '#ffffff',
  titleFontColor: '#0f172a',
  bodyFontColor: '#1e293b',
  bodyFontColorMuted: '#475569',
  navigationFontColor: '#e2e8f0',
  linkFontColor: '#1d4ed8',
  cardBackgroundColor: '#f8fafc',
  borderColor: '#94a3b8',
  primaryButtonBackgroundColor: '#1d4ed8',
  primaryButtonFontColor: '#ffffff',
};

/** The dark default theme. */
export const DEFAULT_DARK: Theme = {
  bodyBackgroundColor: '#0f172a',
  headerBackgroundColor: '#020617',
  headerFontColor: '#f8fafc',
  titleFontColor: '#f8fafc',
  bodyFontColor: '#e2e8f0',
  bodyFontColorMuted: '#a3b1c6',
  navigationFontColor: '#cbd5e1',
  linkFontColor: '#93c5fd',
  cardBackgroundColor: '#1e293b',
  borderColor: '#64748b',
  primaryButtonBackgroundColor: '#93c5fd',
  primaryButtonFontColor: '#0f172a',
};

/** State colours (bars, badge edges): at least 3:1 against the card background of their theme (WCAG 1.4.11). */
export const STATE_COLORS = {
  light: { ok: '#15803d', minor: '#a16207', warn: '#c2410c', bad: '#b91c1c', none: '#64748b' },
  dark: { ok: '#4ade80', minor: '#fde047', warn: '#fb923c', bad: '#f87171', none: '#94a3b8' },
};

/**
 * Colours of the response-time charts (p50 solid, p95 dashed): at least 3:1 against the card and
 * page backgrounds of their default theme (WCAG 1.4.11), tested with the state colours.
 */
export const CHART_COLORS = {
  light: { p50: '#1d4ed8', p95: '#9a3412' },
  dark: { p50: '#93c5fd', p95: '#fdba74' },
};

const VAR: Record<keyof Theme, string> = {
  bodyBackgroundColor: '--bg',
  headerBackgroundColor: '--header-bg',
  headerFontColor: '--header-fg',
  titleFontColor: '--title',
  bodyFontColor: '--fg',
  bodyFontColorMuted: '--muted',
  navigationFontColor: '--nav',
  linkFontColor: '--link',
  cardBackgroundColor: '--card',
  borderColor: '--border',
  primaryButtonBackgroundColor: '--btn-bg',
  primaryButtonFontColor: '--btn-fg',
};

const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

function vars(theme: Theme, states: Record<string, string>, charts: Record<string, string>): string {
  const decl = (Object.keys(VAR) as Array<keyof Theme>).map((k) => {
    // Stored colours are validated (#RGB/#RRGGBB); anything else falls back rather than reaching CSS.
    const v = COLOR.test(String(theme[k])) ? theme[k] : DEFAULT_LIGHT[k];
    return `${VAR[k]}:${v}`;
  });
  for (const [k, v] of Object.entries(states)) decl.push(`--s-${k}:${v}`);
  for (const [k, v] of Object.entries(charts)) decl.push(`--c-${k}:${v}`);
  return decl.join(';');
}

/** The custom properties of a page: light, dark, or both by `prefers-color-scheme` (AUTO). */
export function themeCss(colors: { light: Theme; dark: Theme } | null | undefined, mode: ThemeMode): string {
  const light = colors?.light ?? DEFAULT_LIGHT;
  const dark = colors?.dark ?? DEFAULT_DARK;
  const lightVars = `:root{color-scheme:light;${vars(light, STATE_COLORS.light, CHART_COLORS.light)}}`;
  const darkVars = `:root{color-scheme:dark;${vars(dark, STATE_COLORS.dark, CHART_COLORS.dark)}}`;
  if (mode === 'LIGHT') return lightVars;
  if (mode === 'DARK') return darkVars;
  return `${lightVars}@media (prefers-color-scheme: dark){${darkVars}}`;
}

/** Relative luminance of #RGB / #RRGGBB (WCAG 2.1). */
export function luminance(hex: string): number {
  let h = hex.slice(1);
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours (1..21). */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
