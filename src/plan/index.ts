/** The plan stage: fetch, normalize, match, diff, assemble; plus what apply needs of the kind table. */
export { createPlan, type PlanOptions } from './plan.js';
export { assemblePlan, kindsToFetch, type PlanInput } from './assemble.js';
export { assembleDestroyPlan, type DestroyInput } from './destroy.js';
export { fetchLive, type LiveState } from './fetch.js';
export { buildDesired, desiredBodies, secretValues, isRefMarker, SENSITIVE, refOf, type Desired, type ResolveRef } from './desired.js';
export { compareObjects, fingerprint, normalizeLive } from './compare.js';
export { requestBody, findLive } from './body.js';
export { ownershipTag, ownedId } from './ownership.js';
export { KIND_SPECS, kindSpec, CHECK_TYPE, type KindSpec, type KindApi, type Endpoint } from '../kinds/index.js';
export * from './types.js';
