/**
 * Request bodies of the status-page family (decisions §3.6, §4): status pages, services,
 * incidents, incident updates and page subscriptions. Unknown fields are stripped (§1.6).
 */
import { z } from 'zod';
import { THEME_COLOR_KEYS, themeColor } from '../../schema/fields.js';


const theme = z.object(Object.fromEntries(THEME_COLOR_KEYS.map((k) => [k, themeColor])) as Record<(typeof THEME_COLOR_KEYS)[number], typeof themeColor>);

const optionalText = z.string().max(2048).nullable().default(null);
const serviceRef = z.object({ id: z.string().min(1) });

/** POST / PUT (replace) body of a status page. */
export const statusPageBody = z.object({
  name: z.string().min(1).max(255),
  url: z.string().min(1).max(255),
  cards: z.array(
    z.object({
      id: z.string().min(1).max(255).optional(),
      name: z.string().min(1).max(255),
      services: z.array(serviceRef).default([]),
    }),
  ),
  customDomain: optionalText,
  themeColors: z.object({ light: theme, dark: theme }).nullable().default(null),
  logo: optionalText,
  redirectTo: optionalText,
  favicon: optionalText,
  defaultTheme: z.enum(['LIGHT', 'DARK', 'AUTO']).default('AUTO'),
  whiteLabel: z.boolean().default(false),
  /** Days of the public page's uptime bars: 30, 60 or 90 (an addition to the reference). */
  uptimeWindowDays: z.union([z.literal(30), z.literal(60), z.literal(90)], { error: 'must be 30, 60 or 90' }).default(90),
});
/** A validated status-page body, defaults applied. */
export type StatusPageBody = z.infer<typeof statusPageBody>;

/** POST / PUT (replace) body of a service. */
export const serviceBody = z.object({ name: z.string().min(1).max(255) });
/** A validated service body. */
export type ServiceBody = z.infer<typeof serviceBody>;

/** Incident-update statuses; any may follow any (decisions §2). */
export const UPDATE_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
/** Incident severities (decisions §2). */
export const SEVERITIES = ['CRITICAL', 'MAJOR', 'MEDIUM', 'MINOR'] as const;

/** Fields of an incident update as sent; `id` and `created_at` are server-owned and stripped. */
const updateFields = {
  description: z.string().min(1).max(10_000),
  status: z.enum(UPDATE_STATUSES),
  publicIncidentUpdateDate: z.iso.datetime({ offset: true }),
  notifySubscribers: z.boolean(),
};

/** POST body of an incident update: only `description` is required (decisions §2). */
export const incidentUpdateCreateBody = z.object({
  description: updateFields.description,
  status: updateFields.status.optional(),
  publicIncidentUpdateDate: updateFields.publicIncidentUpdateDate.optional(),
  notifySubscribers: updateFields.notifySubscribers.default(false),
});
/** A validated incident-update creation body. */
export type IncidentUpdateCreateBody = z.infer<typeof incidentUpdateCreateBody>;

/** PUT/PATCH body of an incident update: a merge, every field optional. */
export const incidentUpdatePatchBody = z.object({
  description: updateFields.description.optional(),
  status: updateFields.status.optional(),
  publicIncidentUpdateDate: updateFields.publicIncidentUpdateDate.optional(),
  notifySubscribers: updateFields.notifySubscribers.optional(),
});
/** A validated incident-update merge body. */
export type IncidentUpdatePatchBody = z.infer<typeof incidentUpdatePatchBody>;

const incidentName = z.string().min(1).max(255);
const incidentServices = z.array(serviceRef).min(1);

/** POST body of an incident: exactly one update (decisions §4). */
export const incidentCreateBody = z.object({
  name: incidentName,
  severity: z.enum(SEVERITIES),
  services: incidentServices,
  incidentUpdates: z.array(incidentUpdateCreateBody).length(1, 'must hold exactly one update'),
});
/** A validated incident creation body. */
export type IncidentCreateBody = z.infer<typeof incidentCreateBody>;

/** PUT/PATCH body of an incident: a merge of name, severity and services. */
export const incidentPatchBody = z.object({
  name: incidentName.optional(),
  severity: z.enum(SEVERITIES).optional(),
  services: incidentServices.optional(),
});
/** A validated incident merge body. */
export type IncidentPatchBody = z.infer<typeof incidentPatchBody>;

/** POST `/subscriptions/bulk` body (decisions §4). */
export const bulkSubscriptionsBody = z.object({
  subscriptions: z
    .array(z.object({ type: z.literal('EMAIL'), config: z.email({ error: 'must be an email address' }) }))
    .min(1)
    .max(100),
  autoVerify: z.boolean().default(false),
});
/** A validated bulk subscription body. */
export type BulkSubscriptionsBody = z.infer<typeof bulkSubscriptionsBody>;
