import type { Shape } from './shape.js';
import { checkKind } from './check-common.js';
import { isRecord } from './shape.js';
import { HTTP_REQUEST_COMMON } from './url-monitor.js';

/** Header and query-parameter items; a `locked` value is masked in every output (check-common). */
const KEY_VALUE: Shape = { key: {}, value: {}, locked: { default: false } };

/**
 * API checks: request {method, url, body, bodyType, headers, queryParameters, basicAuth, ...};
 * thresholds 5000/20000 ms; setup/teardown snippet ids and local scripts. Headers are a set by
 * name (their order means nothing in HTTP); query parameters keep their order (it is the URL's).
 * The basic-auth password reads back, so it is compared, and always masked.
 */
export const apiCheckKind = checkKind({
  kind: 'ApiCheck',
  segment: 'api',
  shape: {
    request: {
      object: {
        method: {},
        ...HTTP_REQUEST_COMMON,
        body: { default: '' },
        bodyType: { default: 'NONE' },
        headers: { default: [], set: 'key', items: KEY_VALUE },
        queryParameters: { default: [], items: KEY_VALUE },
        basicAuth: { default: null, nullable: true, object: { username: {}, password: {} } },
      },
    },
    degradedResponseTime: { default: 5000, nullable: true },
    maxResponseTime: { default: 20000, nullable: true },
    setupSnippetId: { default: null, nullable: true },
    tearDownSnippetId: { default: null, nullable: true },
    localSetupScript: { default: null, nullable: true, emptyIsNull: true },
    localTearDownScript: { default: null, nullable: true, emptyIsNull: true },
  },
  credentials: (obj) => {
    const request = isRecord(obj.request) ? obj.request : {};
    return isRecord(request.basicAuth) && typeof request.basicAuth.password === 'string' ? ['/request/basicAuth/password'] : [];
  },
});
