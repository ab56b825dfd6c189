/**
 * What the simulator accepts for a campaign (spec, "Campaigns"): the creation and update bodies and
 * the fields an update may not change. Its handlers are in ./campaigns.ts.
 */
import { z } from 'zod';

const optText = (max: number) => z.string().max(max).nullish();

const updatableFields = {
  description: z.string().trim().min(1).max(4096),
  resellerId: z.string().regex(/^R[0-9A-Z]{6}$/, 'must look like R000000'),
  vertical: z.string().nullish(),
  embeddedLink: z.boolean(),
  embeddedPhone: z.boolean(),
  termsAndConditions: z.boolean(),
  numberPool: z.boolean(),
  ageGated: z.boolean(),
  directLending: z.boolean(),
  subscriberOptin: z.boolean(),
  subscriberOptout: z.boolean(),
  subscriberHelp: z.boolean(),
  sample1: optText(1024),
  sample2: optText(1024),
  sample3: optText(1024),
  sample4: optText(1024),
  sample5: optText(1024),
  messageFlow: optText(4096),
  helpMessage: optText(255),
  optinMessage: optText(255),
  optoutMessage: optText(255),
  optinKeywords: optText(255),
  optoutKeywords: optText(255),
  helpKeywords: optText(255),
  privacyPolicyLink: optText(255),
  termsAndConditionsLink: optText(255),
  embeddedLinkSample: optText(255),
  autoRenewal: z.boolean(),
  tag: z.array(z.string().max(50)).max(20),
};

export const CampaignCreateSchema = z.object({
  ...updatableFields,
  brandId: z.string().min(1),
  usecase: z.string().min(1),
  subUsecases: z.array(z.string()).default([]),
  mnoIDs: z.array(z.number().int()).default([]),
  referenceId: z.string().trim().min(1).max(50).nullish(),
  mock: z.boolean().optional(),
  resellerId: updatableFields.resellerId.default('R000000'),
  embeddedLink: z.boolean().default(false),
  embeddedPhone: z.boolean().default(false),
  termsAndConditions: z.boolean().default(false),
  numberPool: z.boolean().default(false),
  ageGated: z.boolean().default(false),
  directLending: z.boolean().default(false),
  subscriberOptin: z.boolean().default(false),
  subscriberOptout: z.boolean().default(false),
  subscriberHelp: z.boolean().default(false),
  autoRenewal: z.boolean().default(true),
  tag: updatableFields.tag.default([]),
});

export const CampaignUpdateSchema = z.object({
  ...Object.fromEntries(Object.entries(updatableFields).map(([k, v]) => [k, v.optional()])),
  // Present only to be refused by name when they would change.
  brandId: z.unknown().optional(),
  usecase: z.unknown().optional(),
  subUsecases: z.unknown().optional(),
  mnoIDs: z.unknown().optional(),
  referenceId: z.unknown().optional(),
  mock: z.unknown().optional(),
});

export const NOT_UPDATABLE = ['brandId', 'usecase', 'subUsecases', 'mnoIDs', 'referenceId', 'mock'] as const;
