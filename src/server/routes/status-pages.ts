import { z } from 'zod';
import { created, noContent, ok, route, type RouteModule } from '../http/route.js';
import { contentRange, cursorOf, cursorQuery } from '../http/lists.js';
import { conflict, invalid, notFound } from '../http/errors.js';
import { mustGet } from '../http/lookup.js';
import { createRecord, deleteRecord, inTransaction, updateRecord } from '../http/write.js';
import { STATUS_COLL } from '../rundata/collections.js';
import { bulkSubscriptionsBody, statusPageBody, type StatusPageBody } from '../status-pages/schemas.js';
import { checkServiceRefs, statusPageView, subscriptionView, type StoredCard, type StoredStatusPage, type Subscription } from '../status-pages/model.js';
import type { Store, Transaction } from '../store/store.js';
import { addSubscription, isExpired, MAX_SUBSCRIPTIONS_PER_PAGE, removePageSubscriptions, removeSubscription } from '../status-pages/subscriptions.js';
import { stageConfirmation } from '../status-pages/mails.js';
import { claimDomain, domainKeyOf } from '../resources/custom-domains.js';

// Status pages (spec endpoints 4 and 5, decisions §3.6 and §4): PUT replaces; `url` and
// `customDomain` are unique across every account (409); cards keep a given id.
const pageParams = z.object({ statusPageId: z.string() });

/** 400 for repeated card ids: a rule of the body alone, checked before the lookup. */
function checkCardIds(body: StatusPageBody): void {
  const seen = new Set<string>();
  body.cards.forEach((card, i) => {
    if (card.id !== undefined) {
      if (seen.has(card.id)) throw invalid('payload', `cards.${i}.id`, `repeats card id "${card.id}"`);
      seen.add(card.id);
    }
  });
}

/** 400 for services the account does not have, in body order (after the lookup, docs/serve.md). */
function checkCardServices(tx: Transaction, body: StatusPageBody): void {
  checkServiceRefs(
    tx,
    body.cards.flatMap((card, i) => card.services.map((s, j) => ({ path: `cards.${i}.services.${j}.id`, id: s.id }))),
  );
}

/**
 * 409 when another page, in any account, has the same url, or another page or dashboard the
 * same custom domain (compared normalized: resources/custom-domains.ts); the commit of `tx`
 * checks both again (on a database shared by several instances, inside its transaction).
 */
function checkUnique(store: Store, tx: Transaction, body: StatusPageBody, selfId?: string): void {
  const urlTaken = () => conflict(`Status page url "${body.url}" is already taken`);
  for (const { record } of store.everywhere<StoredStatusPage>(STATUS_COLL.statusPages)) {
    if (record.id === selfId) continue;
    if (record.url === body.url) throw urlTaken();
  }
  tx.unique(STATUS_COLL.statusPages, 'url', body.url, selfId, urlTaken);
  if (body.customDomain !== null && body.customDomain !== '') claimDomain(store, tx, body.customDomain, { coll: STATUS_COLL.statusPages, id: selfId });
}

/** The stored page of a body; cards already on the page keep their `created_at`. */
function toStored(tx: Transaction, body: StatusPageBody, now: string, prior?: StoredStatusPage): StoredStatusPage {
  const priorCards = new Map((prior?.cards ?? []).map((c) => [c.id, c]));
  const cards: StoredCard[] = body.cards.map((card) => {
    const before = card.id !== undefined ? priorCards.get(card.id) : undefined;
    return {
      id: card.id ?? tx.uuid(),
      name: card.name,
      services: card.services.map((s) => ({ id: s.id })),
      created_at: before?.created_at ?? now,
      updated_at: before ? now : null,
    };
  });
  return {
    id: prior?.id ?? tx.uuid(),
    ...body,
    customDomainKey: domainKeyOf(body.customDomain),
    cards,
    created_at: prior?.created_at ?? now,
    updated_at: prior ? now : null,
  };
}

/**
 * A page as the API returns it: services expanded, and the owning account's id, which the
 * reference's StatusPage schema has (it was missing, defect D1 of issue 16).
 */
function pageView(store: Store, account: string, page: StoredStatusPage) {
  return { ...statusPageView(store.view(account), page), accountId: account };
}

/** Routes of `/v1/status-pages` and page subscriptions; registered after services and incidents. */
export const statusPageRoutes: RouteModule = (ctx) => {
  const { store, isoNow } = ctx;
  return [
    route({
      method: 'GET',
      path: '/v1/status-pages',
      query: cursorQuery(20),
      handle: ({ account, query }) => {
        const page = cursorOf(store.list<StoredStatusPage>(account, STATUS_COLL.statusPages).reverse(), query, (p) => p.id);
        return ok({ ...page, entries: page.entries.map((p) => pageView(store, account, p)) });
      },
    }),
    route({
      method: 'POST',
      path: '/v1/status-pages',
      body: statusPageBody,
      handle: ({ account, body }) =>
        createRecord(
          store,
          account,
          STATUS_COLL.statusPages,
          (tx) => {
            checkCardIds(body);
            checkCardServices(tx, body);
            checkUnique(store, tx, body);
            return toStored(tx, body, isoNow());
          },
          (page) => pageView(store, account, page),
        ),
    }),
    route({
      method: 'GET',
      path: '/v1/status-pages/:statusPageId',
      params: pageParams,
      handle: ({ account, params }) =>
        ok(pageView(store, account, mustGet<StoredStatusPage>(store.view(account), STATUS_COLL.statusPages, params.statusPageId))),
    }),
    route({
      method: 'PUT',
      path: '/v1/status-pages/:statusPageId',
      params: pageParams,
      body: statusPageBody,
      handle: ({ account, params, body }) => {
        checkCardIds(body);
        return updateRecord<StoredStatusPage>(
          store,
          account,
          STATUS_COLL.statusPages,
          params.statusPageId,
          (prior, tx) => {
            checkCardServices(tx, body);
            checkUnique(store, tx, body, prior.id);
            return toStored(tx, body, isoNow(), prior);
          },
          (page) => pageView(store, account, page),
        );
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/status-pages/:statusPageId',
      params: pageParams,
      handle: ({ account, params }) =>
        deleteRecord(store, account, STATUS_COLL.statusPages, params.statusPageId, (tx) => removePageSubscriptions(tx, params.statusPageId, ctx.options.now())),
    }),
    route({
      method: 'GET',
      path: '/v1/status-pages/:statusPageId/subscriptions',
      params: pageParams,
      handle: ({ account, params }) => {
        mustGet(store.view(account), STATUS_COLL.statusPages, params.statusPageId);
        const now = ctx.options.now();
        // An unconfirmed subscription past its time is gone (status-pages/subscriptions.ts).
        const subs = store
          .list<Subscription>(account, STATUS_COLL.subscriptions)
          .filter((s) => s.statusPageId === params.statusPageId && !isExpired(s, now))
          .map(subscriptionView);
        return ok(subs, { 'content-range': contentRange(0, subs.length, subs.length) });
      },
    }),
    route({
      method: 'POST',
      path: '/v1/status-pages/:statusPageId/subscriptions/bulk',
      params: pageParams,
      body: bulkSubscriptionsBody,
      handle: ({ account, params, body }) => {
        const status = body.autoVerify ? 'VERIFIED' : 'PENDING';
        const now = ctx.options.now();
        const { createdCount, queued } = inTransaction(store, account, (tx) => {
          const page = mustGet<StoredStatusPage>(tx, STATUS_COLL.statusPages, params.statusPageId);
          let createdCount = 0;
          let queued = false;
          // An address subscribed already, repeated, or at its bound of subscriptions is skipped.
          for (const { config } of body.subscriptions) {
            const made = addSubscription(tx, page.id, config, status, now);
            if (made.kind === 'page-full') throw conflict(`The status page has ${MAX_SUBSCRIPTIONS_PER_PAGE} subscriptions, the most a page may have; nothing was added`);
            if (made.kind !== 'created') continue;
            createdCount++;
            // Without autoVerify, each new address confirms through the link of its mail (double opt-in).
            if (status === 'PENDING' && stageConfirmation(ctx, tx, page, made.subscription, now)) queued = true;
          }
          return { createdCount, queued };
        });
        if (queued) ctx.outbox.kick();
        return created({ created: createdCount, skipped: body.subscriptions.length - createdCount, status });
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/status-pages/:statusPageId/subscriptions/:subscriptionId',
      params: z.object({ statusPageId: z.string(), subscriptionId: z.string() }),
      handle: ({ account, params }) =>
        inTransaction(store, account, (tx) => {
          mustGet(tx, STATUS_COLL.statusPages, params.statusPageId);
          const sub = tx.get<Subscription>(STATUS_COLL.subscriptions, params.subscriptionId);
          // A subscription of another page is not found under this one (decisions §5.8).
          if (!sub || sub.statusPageId !== params.statusPageId || isExpired(sub, ctx.options.now())) throw notFound();
          removeSubscription(tx, sub, ctx.options.now());
          return noContent();
        }),
    }),
  ];
};
