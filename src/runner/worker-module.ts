import { existsSync } from 'node:fs';

/**
 * The built module of a worker thread, named by its path under src/ with a .js extension
 * (`server/store/reader-worker.js`): the one in the same build as this module when it runs from
 * dist/; when the sources run (the tests), the one in dist/ (`npm run build` first). undefined
 * when there is none. A worker needs a module Node can load as it is, so it is never a source.
 */
export function workerModule(fromSrc: string): URL | undefined {
  for (const path of [`../${fromSrc}`, `../../dist/${fromSrc}`]) {
    const url = new URL(path, import.meta.url);
    if (existsSync(url)) return url;
  }
  return undefined;
}
