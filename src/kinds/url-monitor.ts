import type { Shape } from './shape.js';
import { checkKind } from './check-common.js';

/**
 * Assertions of URL monitors and API checks: `property`, `target` and `regex` default to "" on
 * the service, and a null `regex` is stored as sent, so null, "" and absent compare equal. Order
 * kept: it is the order they are evaluated and shown in.
 */
export const HTTP_ASSERTION: Shape = {
  source: {},
  comparison: {},
  property: { default: '' },
  target: { default: '' },
  regex: { default: '' },
};

/** What URL monitor and API check requests share (reference ChecksV1UrlRequest / ChecksV1ApiRequest). */
export const HTTP_REQUEST_COMMON: Shape = {
  url: {},
  followRedirects: { default: true },
  skipSSL: { default: false },
  ipFamily: { default: 'IPv4' },
  assertions: { default: [], items: HTTP_ASSERTION },
};

/** URL monitors: request {method GET, url, followRedirects, skipSSL, ipFamily, assertions}; thresholds 3000/5000 ms. */
export const urlMonitorKind = checkKind({
  kind: 'UrlMonitor',
  segment: 'url',
  shape: {
    request: { object: { method: { default: 'GET' }, ...HTTP_REQUEST_COMMON } },
    degradedResponseTime: { default: 3000, nullable: true },
    maxResponseTime: { default: 5000, nullable: true },
  },
});
