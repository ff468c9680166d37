// A counting reverse proxy: every request `mac` sends passes through it on its way to the
// service, so the count is taken on the wire rather than trusted from the client.
import { createServer } from 'node:http';
import { Pool } from 'undici';

/** Hop-by-hop headers a proxy must not forward. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host']);

/**
 * Starts a proxy in front of `target`. Returns `{url, stats, close}`; `stats` holds the request
 * count, counts by method and by list path, the most requests ever in flight at once, and the
 * GETs sent (path and query, in order: the bench replays them as the network floor).
 */
export async function startCountingProxy(target) {
  // Far more connections than any client uses, so the proxy never caps the client's concurrency.
  const pool = new Pool(target, { connections: 256 });
  const stats = { total: 0, byMethod: {}, byPath: {}, inFlight: 0, peakInFlight: 0, gets: [] };
  const server = createServer(async (req, res) => {
    stats.total++;
    stats.byMethod[req.method] = (stats.byMethod[req.method] ?? 0) + 1;
    const path = req.url.split('?')[0];
    if (req.method === 'GET') stats.gets.push(req.url);
    stats.byPath[path] = (stats.byPath[path] ?? 0) + 1;
    stats.peakInFlight = Math.max(stats.peakInFlight, ++stats.inFlight);
    try {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k)));
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const upstream = await pool.request({ method: req.method, path: req.url, headers, body: hasBody ? req : undefined });
      const out = Object.fromEntries(Object.entries(upstream.headers).filter(([k]) => !HOP.has(k)));
      res.writeHead(upstream.statusCode, out);
      for await (const chunk of upstream.body) res.write(chunk);
      res.end();
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bench proxy: ${err.message}`);
    } finally {
      stats.inFlight--;
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stats,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}
