// Payment dependencies, written in TypeScript: the helpers give completion and type errors.
import { tcpCheck } from 'mac-monitoring';

const gateways = [
  { id: 'payments-api', name: 'Payment provider API reachable', hostname: 'api.stripe.com' },
  { id: 'payments-webhooks', name: 'Payment webhook receiver reachable', hostname: 'webhooks.shop.example' },
];

export default gateways.map((g) =>
  tcpCheck({
    id: g.id,
    name: g.name,
    frequency: 5,
    request: { hostname: g.hostname, port: 443 },
    maxResponseTime: 3000,
    alertChannels: ['oncall-email', 'ops-webhook'],
  }),
);
