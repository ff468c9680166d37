/**
 * The document shell of every public page: its `<style>` elements allowed by their SHA-256 hashes
 * in the Content-Security-Policy (which allows only this service's own script), landmarks and a
 * skip link. A page's bytes and headers depend only on what it shows (no per-response nonce), so
 * a rendered page can be shared, compressed once and revalidated by its ETag (cache.ts).
 */
import { createHash } from 'node:crypto';
import { Html, html, safeUrl, styleText } from './html.js';

/** Path of the one script of the pages (served by routes.ts). */
export const SCRIPT_PATH = '/_mac/pages.js';

/** A rendered document and the CSP source of each of its `<style>` elements. */
export interface PageDoc {
  /** The document as one string (joined when asked). */
  readonly html: string;
  /** The document as built (its chunks): what is sent, as `htmlBytes(doc)`. */
  doc: Html;
  /** `'sha256-...'` of each `<style>` element's text, in document order. */
  styles: string[];
}

/**
 * The text of a `<style>` element as a browser reads it: the HTML parser turns CR LF and CR into
 * LF and NUL into U+FFFD before the CSP hash is taken, so the text is written that way already
 * (the hash of what is sent is then the hash the browser computes).
 */
export function styleContent(css: string): string {
  return styleText(css).replace(/\r\n?/g, '\n').replace(/\u0000/g, '\uFFFD');
}

/** The CSP hash source of a `<style>` element's text. */
export function styleHash(content: string): string {
  return `'sha256-${createHash('sha256').update(content, 'utf8').digest('base64')}'`;
}

/**
 * The CSP of a page: scripts only from this origin (the file at SCRIPT_PATH), styles only the
 * page's own `<style>` elements, each by its hash (none for an HTML fragment such as `/live`).
 */
export function csp(styles: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${styles.length ? styles.join(' ') : "'none'"}`,
    'img-src * data:',
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every HTML answer of the pages. */
export function pageHeaders(styles: readonly string[] = []): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp(styles),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

const BASE_CSS = `
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);color:var(--link);padding:.5rem}
.skip:focus{left:0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header.top{background:var(--header-bg);color:var(--header-fg)}
header.top .inner{display:flex;align-items:center;gap:1rem;padding:.75rem 1rem;margin:0 auto;max-width:var(--width,960px)}
header.top a{color:var(--header-fg)}
header.top nav a{color:var(--nav)}
header.top img{max-height:40px;vertical-align:middle}
header.top .site{font-size:1.25rem;font-weight:700;margin:0}
main{margin:0 auto;max-width:var(--width,960px);padding:1rem}
h1,h2,h3{color:var(--title);line-height:1.25}
h1{font-size:1.75rem}h2{font-size:1.35rem;margin-top:2rem}h3{font-size:1.05rem;margin:0}
.muted{color:var(--muted)}
.card{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:1rem;margin:0 0 1rem}
ul.plain{list-style:none;margin:0;padding:0}
.service{padding:.75rem 0;border-top:1px solid var(--border)}
.service:first-child{border-top:0}
.row{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap;align-items:baseline}
.state{font-weight:600;border-left:4px solid var(--s-none);padding-left:.5rem}
.s-operational,.s-passing{border-color:var(--s-ok)}
.s-minor,.s-degraded{border-color:var(--s-minor)}
.s-partial-outage{border-color:var(--s-warn)}
.s-major-outage,.s-failing{border-color:var(--s-bad)}
.s-no-data{border-color:var(--s-none)}
svg.bar{display:block;width:100%;height:28px;margin:.5rem 0 0}
svg.bar .d-operational{fill:var(--s-ok)}svg.bar .d-minor,svg.bar .d-degraded{fill:var(--s-minor)}
svg.bar .d-partial-outage{fill:var(--s-warn)}svg.bar .d-major-outage{fill:var(--s-bad)}svg.bar .d-no-data{fill:var(--s-none)}
.bar-legend{display:flex;justify-content:space-between;font-size:.85rem}
.bar-legend .uptime{color:var(--fg);font-weight:600}
figure.chart{margin:.75rem 0 0}
figure.chart figcaption{font-size:.85rem;color:var(--muted)}
svg.chart{display:block;width:100%;height:auto}
svg.chart .grid{stroke:var(--border);stroke-width:1}
svg.chart .axis{fill:var(--muted);font-size:12px;font-family:inherit}
svg.chart-small .axis{font-size:11px}
svg.chart .p50{stroke:var(--c-p50)}svg.chart .p95{stroke:var(--c-p95)}
svg.chart circle.p50{fill:var(--c-p50);stroke:none}svg.chart circle.p95{fill:var(--c-p95);stroke:none}
svg.chart .fail{fill:var(--s-bad)}
svg.chart .nodata{fill:var(--s-none);fill-opacity:.18}
.charts-large{display:grid;grid-template-columns:repeat(auto-fit,minmax(22rem,1fr));gap:1rem}
.check h3 a{color:inherit}
table.runs,table.asserts{width:100%;border-collapse:collapse;font-size:.9rem;margin:.5rem 0}
table.runs th,table.runs td,table.asserts th,table.asserts td{text-align:left;padding:.35rem .5rem;border-top:1px solid var(--border);vertical-align:top}
code{overflow-wrap:anywhere;font-size:.9em}
.why{margin:.25rem 0}
.incident h3{margin-bottom:.25rem}
.updates{list-style:none;padding:0;margin:.5rem 0 0}
.updates li{border-left:2px solid var(--border);padding:0 0 .5rem .75rem}
.updates p{margin:.25rem 0;white-space:pre-wrap}
form.subscribe{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
input[type=email]{font:inherit;padding:.4rem .6rem;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg);min-width:16rem}
button{font:inherit;padding:.4rem 1rem;border:0;border-radius:6px;background:var(--btn-bg);color:var(--btn-fg);cursor:pointer}
footer{margin:2rem auto;max-width:var(--width,960px);padding:0 1rem;font-size:.9rem;color:var(--muted)}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(18rem,1fr));gap:1rem;list-style:none;padding:0;margin:0}
.check{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:1rem}
.check dl{display:grid;grid-template-columns:repeat(3,auto);gap:.25rem 1rem;margin:.5rem 0}
.check dt{font-size:.8rem;color:var(--muted)}
.check dd{margin:0;font-weight:600}
.tags{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;padding:0;margin:.5rem 0 0}
.tags li{border:1px solid var(--border);border-radius:999px;padding:0 .5rem;font-size:.8rem}
.pager{font-size:.9rem}
.pager button{margin-left:.5rem;padding:.2rem .75rem}
.overall{font-size:1.1rem}
`;

/** What one page is made of. */
export interface PageParts {
  title: string;
  lang?: string;
  themeCss: string;
  /** The owner's CSS (dashboards), placed last so it wins. */
  customCss?: string;
  favicon?: string | null;
  /** Max width of header, main and footer (`960px`, or `none` for FULL). */
  width?: string;
  header: Html;
  main: Html;
  footer?: Html;
  /** Attributes on <body> the script reads (data-*). */
  bodyAttrs?: Html;
  script?: boolean;
}

/** The whole document. */
export function layout(p: PageParts): PageDoc {
  const favicon = safeUrl(p.favicon);
  const width = p.width ? `:root{--width:${p.width}}` : '';
  const base = styleContent(p.themeCss + width + BASE_CSS);
  const custom = p.customCss ? styleContent(p.customCss) : '';
  const doc = html`<!doctype html>
<html lang="${p.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title}</title>
${favicon ? html`<link rel="icon" href="${favicon}">` : ''}
<style>${raw(base)}</style>
${custom ? html`<style id="custom-css">${raw(custom)}</style>` : ''}
${p.script ? html`<script src="${SCRIPT_PATH}" defer></script>` : ''}
</head>
<body${p.bodyAttrs ?? ''}>
<a class="skip" href="#main">Skip to content</a>
${p.header}
<main id="main">
${p.main}
</main>
${p.footer ?? ''}
</body>
</html>
`;
  return {
    get html() {
      return doc.value;
    },
    doc,
    styles: custom ? [styleHash(base), styleHash(custom)] : [styleHash(base)],
  };
}

// Local helper: text that is already safe for its context (CSS passed through styleText).
function raw(s: string): Html {
  return new Html(s);
}
