/**
 * The API reference of `mac serve` (docs/serve-api.md), generated from the routes the service
 * registers, so that it cannot drift from them. `node scripts/api-reference.mjs` writes it.
 */
import { apiRoutes } from './app.js';
import { createContext } from './context.js';
import { DEFAULT_RATE_LIMIT, DEV_KEY, MAX_BODY_BYTES, resolveServerOptions } from './options.js';
import { Store } from './store/store.js';
import { MAX_CLAIM_BATCH, MAX_WAIT_MS, RESULT_MARGIN_MS } from './agents/queue.js';
import { CLOCK_SKEW_MS, MAX_RESULT_BATCH, MAX_RESULT_BODY_BYTES, MAX_RESULT_OBJECT_BYTES, MAX_SMALL_BODY_BYTES, MAX_WAITING_PER_LOCATION } from './agents/protocol.js';

/** The agent protocol (an addition to the spec), after the API's routes. */
const AGENT_PROTOCOL = [
  '## The agent protocol (private locations)',
  '',
  'An addition to the spec: how `mac agent` runs the checks of a private location. JSON over HTTP(S),',
  'versioned in the path (`/agent/v1/`); the agent only connects outward. Every request carries',
  '`Authorization: Bearer pl_...`, a key of the private location (`POST /v1/private-locations/{id}/keys`),',
  'and `Content-Type: application/json`. A private-location key opens these five routes and nothing',
  'else (any `/v1` route answers it 401); an API key opens none of them. An unknown or deleted key',
  'answers 401; another protocol version 404. Keys are stored as their SHA-256 only, compared in',
  'constant time, and shown as `maskedKey` (`...` and the last 4 characters). Keys created before',
  'this service version kept no hash: create a new one for an agent.',
  '',
  '| method | path | body | answer |',
  '|---|---|---|---|',
  `| POST | \`/agent/v1/claims\` | \`{"agent": {"id", "version", "hostName"}, "max": 1..${MAX_CLAIM_BATCH}, "waitSeconds": 0..${MAX_WAIT_MS / 1000}}\`, at most ${MAX_SMALL_BODY_BYTES / 1024} KiB | 200 \`{"protocol": 1, "location", "features", "leaseSeconds", "timeScale", "runs": [{"runId", "token", "dueAt", "leaseUntil", "check"}]}\`: up to \`max\` due runs of the key's location, oldest first, each claimed until \`leaseUntil\` for this agent (\`token\` names the claim and its agent; only that agent may use it). Waits up to \`waitSeconds\` for one (long poll). \`check\` is the stored check with its snippets' scripts, as \`mac serve\` runs it. 429 when ${MAX_WAITING_PER_LOCATION} requests of the location already wait on this instance |`,
  `| POST | \`/agent/v1/results\` | \`{"runId", "token", "agentId", "attempts": [...]}\`, at most ${MAX_RESULT_BODY_BYTES / 1024 / 1024} MiB | 200 \`{"recorded": true, "checkSessionId"}\`: the attempts (the runner's results: retries as \`ATTEMPT\`, the last one \`FINAL\`; files of a browser run base64 in \`assets\`) recorded as the location's run of that due time. Checked strictly: no field beyond the documented ones, attempts numbered from 0 with only the last \`FINAL\`, each started and stopped between the run's due time and now (give or take ${CLOCK_SKEW_MS / 1000} s of clock difference), each result object at most ${MAX_RESULT_OBJECT_BYTES / 1024 / 1024} MiB as JSON: otherwise 400 naming the field, 413 past the body's bound. 409 when the claim no longer holds the run (its lease ended, or it was recorded), is another agent's (\`agentId\` is not the claimer) or ends within ${RESULT_MARGIN_MS / 1000} s (a fifth of a shorter lease): the agent drops the result and the run is run again by whoever claims it next |`,
  `| POST | \`/agent/v1/result-batches\` | \`{"agentId", "results": [{"runId", "token", "attempts": [...]}]}\` (1..${MAX_RESULT_BATCH} results), at most ${MAX_RESULT_BODY_BYTES / 1024 / 1024} MiB in all | 200 \`{"results": [{"runId", "status", "recorded", "checkSessionId", "message", "errors"}]}\`: the results of several claimed runs in one request, in order, each checked and recorded (or refused) on its own exactly as by \`/agent/v1/results\`: \`status\` 200 recorded, 400 not valid (\`errors\` name the fields), 409 the claim no longer holds the run. 400 for the whole request only when its envelope is not valid, 413 past the body's bound. An addition to version 1: a service that serves it names \`result-batches\` in the claims answer's \`features\`, and the agent posts the results ready at once together only then |`,
  '| POST | `/agent/v1/releases` | `{"runs": [{"runId", "token"}]}` | 200 `{"released": N}`: claimed runs given back (an agent stopping), claimable at once |',
  `| POST | \`/agent/v1/leases\` | \`{"agentId", "runs": [{"runId", "token"}]}\` (1..${MAX_CLAIM_BATCH}) | 200 \`{"leaseSeconds", "runs": [{"runId", "token", "leaseUntil"}]}\`: the claims of runs still under way extended by a whole lease from now, each with its new token (the old one no longer holds the run); a claim that ended, ends within the result margin, or is another agent's is left out. The agent extends at half of what is left of a lease, so a check that runs longer than a lease (a browser check) is not run twice; an agent that goes silent still loses its claims when the lease ends |`,
  '',
  'Each due run of a check in a private location is queued for that location, once (on several',
  'instances the one that claims the due time queues it). An agent claims it by lease (`mac serve',
  '--agent-lease`, default 300 s); the lease ending without a result makes it claimable again, so the',
  'run of an agent that went silent is run by another agent of the location. A run no agent claims',
  'within `--agent-queue-timeout` (default 360 s) of when it was due or its lease ended is recorded',
  'as not run: a result with an error saying so, never a pass. Each run is a check session of its',
  'own with one location, the private location, recorded like the service\'s own runs (error groups,',
  'alerts, analytics, public pages).',
  '',
  '`GET /v1/private-locations/{id}` also answers `lastSeen`, `agentCount` (agents heard from in the',
  'last 70 s), `minAgentVersion`, `runningAgents` (`[{version, isOutdated, count, agents}]`) and',
  '`agents` (`[{id, version, hostName, firstContact, lastContact, connected}]`).',
  '`GET /v1/private-locations/{id}/metrics?from=&to=` (UNIX seconds or ISO 8601; `from` within 15 days)',
  'answers one point per minute: `timestamps`, `queueSize` (runs waiting), `oldestScheduledCheckRun`',
  '(seconds the oldest has waited), and, beyond the reference, `agentsConnected`, `runsPerMinute` and',
  '`notRunPerMinute`.',
  '',
];

/** The Markdown text of docs/serve-api.md. */
export function apiReference(): string {
  const routes = apiRoutes(createContext(resolveServerOptions({}), Store.memory()));
  const areas = new Map<string, typeof routes>();
  for (const r of routes) {
    const area = r.path.split('/')[2] ?? r.path;
    if (!areas.has(area)) areas.set(area, []);
    areas.get(area)!.push(r);
  }
  const lines = [
    '# The API of `mac serve`',
    '',
    '<!-- Generated by scripts/api-reference.mjs from src/server/app.ts; do not edit. -->',
    '',
    'What a client of `mac serve` (mac itself, `curl`, another tool) may call. Every `/v1` route',
    'takes these headers:',
    '',
    '| header | value |',
    '|---|---|',
    `| \`Authorization\` | \`Bearer KEY\`: a key given with \`--api-key\` / \`--keys\` (default: \`${DEV_KEY.key}\`); a wrong or missing key answers 401 |`,
    `| \`x-service-account\` | optional; when sent it must be the key's account (default: \`${DEV_KEY.accountId}\`), else 401 |`,
    '| `Content-Type` | `application/json` on a request with a body |',
    '',
    `Bodies are JSON, at most ${MAX_BODY_BYTES / 1024 / 1024} MiB. Every key has a rate limit (default ${DEFAULT_RATE_LIMIT.limit} requests per ${DEFAULT_RATE_LIMIT.windowSeconds} s, \`--rate-limit\`); over it the`,
    'answer is 429 with `Retry-After`. Lists take `limit` (1 to 100) and `page` (from 1), or a',
    'cursor (status pages, their services, incidents). Errors are JSON',
    '`{"statusCode", "error", "message"}`. A read-only key may call only the routes marked',
    '"read-only key: yes" (any other answers 403).',
    '',
    'Without a key: `GET|POST|HEAD /ping/{pingToken}` (a heartbeat ping), and the public pages',
    '`/status/{url}` and `/dashboards/{customUrl}` ([serve.md](serve.md#public-pages)).',
    '',
  ];
  for (const [area, list] of areas) {
    lines.push(`## ${area}`, '', '| method | path | read-only key |', '|---|---|---|');
    for (const r of list) lines.push(`| ${r.method} | \`${r.path.replace(/:(\w+)/g, '{$1}')}\` | ${r.readOnlyAllowed ? 'yes' : 'no'} |`);
    lines.push('');
  }
  lines.push(...AGENT_PROTOCOL);
  return `${lines.join('\n').trimEnd()}\n`;
}
