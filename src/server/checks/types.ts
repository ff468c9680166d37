import { z } from 'zod';
import { apiFields, CHECK_TYPE_RULES, minuteFrequency, subminuteFrequency, type ApiCheckType } from '../../schema/fields.js';

/** Every check type the spec names (filters of GET /v1/checks, the deprecated PUT). */
export const SPEC_CHECK_TYPES = ['API', 'BROWSER', 'HEARTBEAT', 'ICMP', 'MULTI_STEP', 'TCP', 'FRAMEWORK', 'URL', 'DNS'] as const;

/** How one stored check type is created, updated, defaulted and shown. */
export interface CheckTypeSpec {
  checkType: ApiCheckType;
  /** Path segment: POST /v1/checks/<segment>, PUT /v1/checks/<segment>/{id}. */
  segment: string;
  create: z.ZodType<Record<string, unknown>>;
  update: z.ZodType<Record<string, unknown>>;
  /** Defaults of the type's own fields on create (shared ones are in checks/defaults.ts). */
  defaults: Record<string, unknown>;
  /** Stored but never returned (spec 2.4: multi-step scriptPath and dependencies). */
  writeOnly: readonly string[];
  /** Fields whose object value replaces the stored one whole on PUT, defaults re-applied. */
  objects: readonly string[];
}

const strip = apiFields('strip');
const strict = apiFields('strict');

function checkTypeField(t: ApiCheckType) {
  return z.literal(t).optional();
}

// TCP: name and request required on create [R]; nothing on update [S].
const tcpShape = {
  ...strip.checkShared,
  ...strip.thresholds,
  checkType: checkTypeField('TCP'),
  frequency: subminuteFrequency.optional(),
  request: strip.tcpRequest.optional(),
};
const tcpCreate = z.object({ ...tcpShape, name: z.string().min(1), request: strip.tcpRequest });

// DNS create is strict [R]: any field outside the schema -> 400; update requires name [R].
const dnsShape = (f: typeof strip) => ({
  ...f.checkShared,
  ...f.thresholds,
  ...f.dnsExtras,
  checkType: checkTypeField('DNS'),
  frequency: subminuteFrequency.optional(),
  request: f.dnsRequest.optional(),
});
const dnsCreate = z.strictObject({
  ...dnsShape(strict),
  name: z.string().min(1),
  request: strict.dnsRequest,
  heartbeat: strict.dnsHeartbeat,
  script: z.string(),
});
const dnsUpdate = z.object({ ...dnsShape(strip), name: z.string().min(1) });

// Multi-step: no request, frequencyOffset or thresholds (spec 2.4); script required on create [S].
const { frequencyOffset: _omitOffset, ...sharedNoOffset } = strip.checkShared;
const multiStepShape = {
  ...sharedNoOffset,
  ...strip.multiStepExtras,
  checkType: checkTypeField('MULTI_STEP'),
  frequency: minuteFrequency.optional(),
};
const multiStepCreate = z.object({ ...multiStepShape, name: z.string().min(1), script: z.string().min(1).nullable() });

// Browser (reference ChecksV1BrowserCheckCreate): the multi-step shape plus sslCheckDomain; script required on create.
const browserShape = {
  ...sharedNoOffset,
  ...strip.browserExtras,
  checkType: checkTypeField('BROWSER'),
  frequency: minuteFrequency.optional(),
};
const browserCreate = z.object({ ...browserShape, name: z.string().min(1), script: z.string().min(1).nullable() });

// Heartbeat (api-decisions §5.5): heartbeat object required on create; no request or thresholds.
const heartbeatShape = {
  ...strip.checkShared,
  checkType: checkTypeField('HEARTBEAT'),
  frequency: minuteFrequency.optional(),
  heartbeat: strip.heartbeat.optional(),
};
const heartbeatCreate = z.object({ ...heartbeatShape, name: z.string().min(1), heartbeat: strip.heartbeat });

// URL monitors and API checks (reference POST/PUT /v1/checks/url and /v1/checks/api): name and
// request required on create; nothing on update, but a request sent replaces the stored one whole,
// so it carries its required fields (url; method for API checks) like the reference's patches.
const httpShape = (t: 'URL' | 'API') => ({
  ...strip.checkBodies[t],
  checkType: checkTypeField(t),
});
const urlCreate = z.object({ ...httpShape('URL'), name: z.string().min(1), request: strip.urlRequest });
const apiCreate = z.object({ ...httpShape('API'), name: z.string().min(1), request: strip.apiRequest });

// ICMP monitors (reference POST/PUT /v1/checks/icmp): name and request required on create; a
// request sent on update replaces the stored one whole, so it carries its hostname.
const icmpShape = { ...strip.checkBodies.ICMP, checkType: checkTypeField('ICMP') };
const icmpCreate = z.object({ ...icmpShape, name: z.string().min(1), request: strip.icmpRequest });

const SHARED_OBJECTS = ['alertSettings', 'retryStrategy', 'triggerIncident'] as const;

/** One row per stored check type. */
export const CHECK_TYPES: Record<ApiCheckType, CheckTypeSpec> = {
  TCP: {
    checkType: 'TCP',
    segment: 'tcp',
    create: tcpCreate,
    update: z.object(tcpShape),
    defaults: { ...CHECK_TYPE_RULES.TCP.thresholds },
    writeOnly: [],
    objects: [...SHARED_OBJECTS, 'request'],
  },
  DNS: {
    checkType: 'DNS',
    segment: 'dns',
    create: dnsCreate,
    update: dnsUpdate,
    defaults: {
      ...CHECK_TYPE_RULES.DNS.thresholds,
      scriptPath: null,
      environmentVariables: [],
      setupSnippetId: null,
      tearDownSnippetId: null,
      localSetupScript: null,
      localTearDownScript: null,
    },
    writeOnly: [],
    objects: [...SHARED_OBJECTS, 'request', 'heartbeat'],
  },
  MULTI_STEP: {
    checkType: 'MULTI_STEP',
    segment: 'multistep',
    create: multiStepCreate,
    update: z.object(multiStepShape),
    defaults: { environmentVariables: [] },
    writeOnly: ['scriptPath', 'dependencies'],
    objects: [...SHARED_OBJECTS],
  },
  BROWSER: {
    checkType: 'BROWSER',
    segment: 'browser',
    create: browserCreate,
    update: z.object(browserShape),
    defaults: { environmentVariables: [], sslCheckDomain: null },
    writeOnly: ['scriptPath', 'dependencies'],
    objects: [...SHARED_OBJECTS],
  },
  HEARTBEAT: {
    checkType: 'HEARTBEAT',
    segment: 'heartbeat',
    create: heartbeatCreate,
    update: z.object(heartbeatShape),
    defaults: {},
    writeOnly: [],
    objects: [...SHARED_OBJECTS, 'heartbeat'],
  },
  URL: {
    checkType: 'URL',
    segment: 'url',
    create: urlCreate,
    update: z.object(httpShape('URL')),
    defaults: { ...CHECK_TYPE_RULES.URL.thresholds },
    writeOnly: [],
    objects: [...SHARED_OBJECTS, 'request'],
  },
  API: {
    checkType: 'API',
    segment: 'api',
    create: apiCreate,
    update: z.object(httpShape('API')),
    defaults: {
      ...CHECK_TYPE_RULES.API.thresholds,
      setupSnippetId: null,
      tearDownSnippetId: null,
      localSetupScript: null,
      localTearDownScript: null,
    },
    writeOnly: [],
    objects: [...SHARED_OBJECTS, 'request'],
  },
  ICMP: {
    checkType: 'ICMP',
    segment: 'icmp',
    create: icmpCreate,
    update: z.object(icmpShape),
    defaults: { ...CHECK_TYPE_RULES.ICMP.thresholds, degradedPacketLossThreshold: 10, maxPacketLossThreshold: 20 },
    writeOnly: [],
    objects: [...SHARED_OBJECTS, 'request'],
  },
};

/** The stored check types, by path segment. */
export const CHECK_TYPE_LIST = Object.values(CHECK_TYPES);
