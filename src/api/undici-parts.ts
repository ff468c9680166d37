/**
 * The two parts of undici the API client uses: its connection-pooling Agent and its request
 * API, imported from their own modules. undici's entry point loads every other part too (fetch,
 * WebSocket, caches, mocks, proxies, interceptors): about 0.2 s of CPU at each start of a
 * command that talks to the API, three times what these two cost. Both are the same code the
 * entry point exports (its `request(url, options)` calls the same function on the dispatcher).
 */
import type { Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import requestOn from 'undici/lib/api/api-request.js';

export const Agent = AgentClass;
export type Agent = InstanceType<typeof AgentClass>;

/**
 * undici's `request(url, { dispatcher, ...options })`: one request on `dispatcher` to `url`
 * (origin, path and query taken from it), resolving to the answer's status, headers and body.
 */
export function request(url: URL, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher }): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  return requestOn.call(dispatcher, { ...rest, origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname });
}
