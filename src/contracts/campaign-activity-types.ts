/**
 * The activity interface of the campaign workflow. Inputs name the CSP account (never credentials);
 * results are small records without secrets: this is what campaign workflow history stores.
 */
import type { CampaignCreation, CampaignUpdate } from '../registry/schemas.js';
import type { AccountInput } from './activity-types.js';

/** Per-MNO metadata as the registry returns it at creation (spec, "Campaign MNO metadata"). */
export interface MnoMetadataRecord {
  mno?: string;
  qualify?: boolean;
  mnoReview?: boolean;
  mnoSupport?: boolean;
  brandTier?: string | null;
  brandDailyCap?: number | null;
  minMsgSamples?: number;
  reqSubscriberHelp?: boolean;
  reqSubscriberOptout?: boolean;
  reqSubscriberOptin?: boolean;
  noEmbeddedLink?: boolean;
  noEmbeddedPhone?: boolean;
}

/** What the campaign workflow learns about the brand before any billable call. */
export interface BrandReadiness {
  /** Phase of `brand/{brandReference}` from its status query; 'missing' when no such workflow answers. */
  workflowPhase: string;
  brandId?: string;
  entityType?: string;
  identityStatus?: string;
  brandStatus?: string;
  contactVerified: boolean;
  /** True when the brand workflow says ready AND the registry confirms (not UNVERIFIED, contact verified where required). */
  ready: boolean;
  /** Why not ready (empty when ready). */
  reasons: string[];
  /** The brand workflow reports an expired political vet (political campaigns are deactivated). */
  politicalCampaignsAffected: boolean;
}

export interface BrandReadinessInput extends AccountInput {
  brandReference: string;
  /** Workflow time (ISO 8601): dated rules (GOVERNMENT contact verification from 2027-01-21) use it. */
  at: string;
}

/** The campaign builder's answer for the brand and use case (response shapes are not in the spec). */
export interface CampaignBuilderCheck {
  supported: boolean;
  reasons: string[];
  /** Per-MNO metadata when the registry returns it with the builder answer. */
  mnoMetadata?: Record<string, MnoMetadataRecord>;
  /** Expected monthly fee when the registry returns it. */
  monthlyFee?: number;
  /** Use cases the brand can support, when `GET /campaignBuilder/brand/{id}` lists them. */
  supportedUsecases?: string[];
}

export interface UseCaseLimits {
  usecase: string;
  exists: boolean;
  minSubUsecases?: number;
  maxSubUsecases?: number;
  classification?: string;
}

/** The part of a registry campaign record the workflow decides on. */
export interface CampaignSnapshot {
  campaignId: string;
  referenceId?: string | null;
  brandId?: string | null;
  status: string;
  usecase?: string | null;
  autoRenewal?: boolean | null;
  nextRenewalOrExpirationDate?: string | null;
  expirationDate?: string | null;
  monthlyFee?: number | null;
  billedDate?: string | null;
  /** Present when the registry returns it on reads (the local simulator does). */
  mnoMetadata?: Record<string, MnoMetadataRecord>;
  /** Per-MNO operation status (e.g. REGISTERED, SUSPENDED) when the registry returns it. */
  mnoOperationStatus?: Record<string, string>;
}

export interface SharingSnapshot {
  upstreamCnpId: string | null;
  sharingStatus: string;
  explanation: string | null;
  sharedDate: string | null;
  statusDate: string | null;
}

export interface CampaignCreatedResult {
  campaignId: string;
  mnoMetadata: Record<string, MnoMetadataRecord>;
  alreadyExisted: boolean;
}

/** Whether the upstream partner is listed at the registry, and whether it is a DCA. */
export interface UpstreamPartnerCheck {
  upstreamCnpId: string;
  /** Its id occurs in `GET /enum/cnp` (as a string value or object key anywhere) or `GET /enum/dca`. */
  listed: boolean;
  /** Its id is a DCA record's `id` in `GET /enum/dca`. */
  dca: boolean;
  /** When the lists that answered were read from the registry (ISO 8601). */
  checkedAt: string;
}

export interface CampaignIdInput extends AccountInput {
  campaignId: string;
}

/** GETs (and the brand workflow query): run on `registry-reads/{account}`. */
export interface CampaignReadActivities {
  checkBrandReadiness(input: BrandReadinessInput): Promise<BrandReadiness>;
  checkCampaignBuilder(
    input: AccountInput & { brandId: string; usecase: string },
  ): Promise<CampaignBuilderCheck>;
  getUseCaseLimits(input: AccountInput & { usecase: string }): Promise<UseCaseLimits>;
  findCampaignByReference(input: AccountInput & { referenceId: string }): Promise<CampaignSnapshot | null>;
  getCampaign(input: CampaignIdInput): Promise<CampaignSnapshot>;
  /** `sharedByMe` of `GET /campaign/{id}/sharing`; null when never shared. */
  getCampaignSharing(input: CampaignIdInput): Promise<SharingSnapshot | null>;
  /**
   * Is `upstreamCnpId` a partner the registry lists (`GET /enum/cnp`, whose shape the spec does not
   * show: its id anywhere in the answer as a string value or object key; or `GET /enum/dca`), and is
   * it a DCA (a DCA record's `id`)? From the worker's per-account reference-list cache.
   */
  checkUpstreamPartner(input: AccountInput & { upstreamCnpId: string }): Promise<UpstreamPartnerCheck>;
}

/** Writes: run on `registry-writes/{account}` (an operator's or a webhook's on `.../interactive`). */
export interface CampaignWriteActivities {
  /** Billed. Idempotent by `creation.referenceId`: looks up before creating and before every retry. */
  createCampaign(input: AccountInput & { creation: CampaignCreation }): Promise<CampaignCreatedResult>;
  updateCampaign(input: CampaignIdInput & { patch: CampaignUpdate }): Promise<CampaignSnapshot>;
  shareCampaign(input: CampaignIdInput & { upstreamCnpId: string }): Promise<SharingSnapshot>;
}

export type CampaignActivities = CampaignReadActivities & CampaignWriteActivities;
