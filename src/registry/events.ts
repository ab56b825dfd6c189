import { z } from 'zod';

/**
 * A registry webhook event (spec, "Events" > "Event body"): a flat JSON object whose only required
 * property is `eventType`. Unknown properties are kept (`passthrough`), because the registry adds new
 * ones and receivers must tolerate them. The same schema serves the ingress, the workflows and the
 * simulator, so all three agree on what an event is.
 */
export const RegistryEventSchema = z
  .object({
    eventType: z.string().min(1),
    cspId: z.string().optional(),
    cnpId: z.string().optional(),
    cspName: z.string().optional(),
    brandId: z.string().optional(),
    brandName: z.string().optional(),
    brandReferenceId: z.string().optional(),
    brandIdentityStatus: z.string().optional(),
    campaignId: z.string().optional(),
    campaignReferenceId: z.string().optional(),
    dcaId: z.string().optional(),
    dcaName: z.string().optional(),
    description: z.string().optional(),
    evpId: z.string().optional(),
    evpName: z.string().optional(),
    vettingId: z.string().optional(),
    mnoId: z.number().int().optional(),
    mnoName: z.string().optional(),
    mock: z.boolean().optional(),
    nudgeIntent: z.string().optional(),
  })
  .passthrough();

export type RegistryEvent = z.infer<typeof RegistryEventSchema>;

/** Event types the spec names. Others exist ("the complete list ... not shown") and are tolerated. */
export const KnownEventTypes = [
  'CAMPAIGN_ADD',
  'CAMPAIGN_SHARE_ACCEPT',
  'CAMPAIGN_SHARE_DELETE',
  'CAMPAIGN_DCA_COMPLETE',
  'MNO_CAMPAIGN_OPERATION_SUSPENDED',
  'BRAND_IDENTITY_STATUS_UPDATE',
  'CAMPAIGN_NUDGE',
] as const;
