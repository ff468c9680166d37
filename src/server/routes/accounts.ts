import { ok, route, type RouteModule } from '../http/route.js';

// The runtime a new check would get; the service has no account-level setting for it.
const DEFAULT_RUNTIME = '2025.04';

/** GET /v1/accounts/me: the credential check of the engine. */
export const accountRoutes: RouteModule = () => [
  route({
    method: 'GET',
    path: '/v1/accounts/me',
    handle: ({ account }) => ok({ id: account, name: account, runtimeId: DEFAULT_RUNTIME }),
  }),
];
