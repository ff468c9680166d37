import type { HttpBindings } from '@hono/node-server';
import type { Caller } from '../context.js';

/** Hono environment of the service: node bindings (absent in-process) and the authenticated caller. */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: { caller: Caller };
}
