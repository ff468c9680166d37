/**
 * API-level building blocks shared by the definition schemas and the local service's request
 * validation: value sets (./fields/values), object schemas per unknown-key mode
 * (./fields/objects, `apiFields('strict' | 'strip')`) and cross-field rules (./fields/rules).
 */
export * from './fields/values.js';
export * from './fields/objects.js';
export * from './fields/rules.js';
