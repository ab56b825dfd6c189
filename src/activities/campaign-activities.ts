/**
 * The campaign workflow's activities. Registry calls go through the account's RegistryClient
 * (credentials stay in worker configuration); `checkBrandReadiness` also asks the brand workflow
 * `brand/{brandReference}` for its status through the Temporal client of the activity context.
 * Results are trimmed to the records in src/contracts/campaign-activity-types.ts. Registry calls get the attempt's
 * cancellation signal (./heartbeat.ts); workers wrap these maps in `withHeartbeat`.
 */

import { Context } from '@temporalio/activity';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { isRecord } from '../common/is-record.js';
import { migratedId } from '../config/entity-lookup.js';
import { type BrandStatus, brandStatusQuery } from '../contracts/brand.js';
import type {
  BrandReadiness,
  CampaignActivities,
  CampaignBuilderCheck,
  CampaignReadActivities,
  CampaignSnapshot,
  CampaignWriteActivities,
  MnoMetadataRecord,
  SharingSnapshot,
} from '../contracts/campaign-activity-types.js';
import { brandWorkflowId } from '../contracts/ids.js';
import { isBuilderRefusal } from '../registry/brand-endpoints.js';
import { NotFoundError } from '../registry/errors.js';
import {
  type Campaign,
  contactVerificationRequired,
  type EntityType,
  EntityTypes,
  type SharingRecord,
} from '../registry/schemas.js';
import { mapRegistryErrors } from './failures.js';
import { attemptCallOptions } from './heartbeat.js';
import { type ReferenceLists, referenceListsFor } from './reference-lists.js';
import { clientOf, type RegistryClientResolver } from './registry-activities.js';

export interface CampaignActivitiesOptions {
  /** Temporal client for the brand workflow query; default the activity context's client. */
  temporalClient?: Client;
  /** The reference-list cache (`/enum/cnp`, `/enum/dca`); default the worker process's one for `resolve`. */
  referenceLists?: ReferenceLists;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** Keeps the known MNO metadata fields of each entry; unknown shapes give undefined. */
export function mnoMetadataRecords(value: unknown): Record<string, MnoMetadataRecord> | undefined {
  if (!isRecord(value)) return undefined;
  const out: Record<string, MnoMetadataRecord> = {};
  for (const [mnoId, raw] of Object.entries(value)) {
    if (!isRecord(raw)) continue;
    const m: MnoMetadataRecord = {};
    if (typeof raw.mno === 'string') m.mno = raw.mno;
    for (const key of [
      'qualify',
      'mnoReview',
      'mnoSupport',
      'reqSubscriberHelp',
      'reqSubscriberOptout',
      'reqSubscriberOptin',
      'noEmbeddedLink',
      'noEmbeddedPhone',
    ] as const) {
      const b = bool(raw[key]);
      if (b !== undefined) m[key] = b;
    }
    if (typeof raw.brandTier === 'string' || raw.brandTier === null) m.brandTier = raw.brandTier;
    if (num(raw.brandDailyCap) !== undefined || raw.brandDailyCap === null)
      m.brandDailyCap = raw.brandDailyCap as number | null;
    if (num(raw.minMsgSamples) !== undefined) m.minMsgSamples = raw.minMsgSamples as number;
    out[mnoId] = m;
  }
  return out;
}

export function campaignSnapshot(c: Campaign): CampaignSnapshot {
  const raw = c as Record<string, unknown>;
  const snapshot: CampaignSnapshot = {
    campaignId: c.campaignId,
    referenceId: c.referenceId ?? null,
    brandId: c.brandId ?? null,
    status: c.status ?? 'ACTIVE',
    usecase: c.usecase ?? null,
    autoRenewal: c.autoRenewal ?? null,
    nextRenewalOrExpirationDate: c.nextRenewalOrExpirationDate ?? null,
    expirationDate: c.expirationDate ?? null,
    monthlyFee: c.monthlyFee ?? null,
    billedDate: c.billedDate ?? null,
  };
  const metadata = mnoMetadataRecords(raw.mnoMetadata);
  if (metadata) snapshot.mnoMetadata = metadata;
  if (isRecord(raw.mnoOperationStatus)) {
    snapshot.mnoOperationStatus = Object.fromEntries(
      Object.entries(raw.mnoOperationStatus).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  }
  return snapshot;
}

export function sharingSnapshot(s: SharingRecord): SharingSnapshot {
  return {
    upstreamCnpId: s.upstreamCnpId ?? null,
    sharingStatus: s.sharingStatus,
    explanation: s.explanation ?? null,
    sharedDate: s.sharedDate ?? null,
    statusDate: s.statusDate ?? null,
  };
}

/**
 * Reads the campaign builder's answer. The spec does not show its shape; the fields read here
 * (`qualified`, `reasons`, `mnoMetadata`, `monthlyFee`, `usecase`) are used when present, and a
 * 200 without them means "supported" (a 404 means the use case is unknown to the brand).
 */
export function builderCheck(
  brandAnswer: unknown,
  useCaseAnswer: unknown,
  usecase: string,
): CampaignBuilderCheck {
  const check: CampaignBuilderCheck = { supported: true, reasons: [] };
  const entries = Array.isArray(brandAnswer)
    ? brandAnswer
    : isRecord(brandAnswer) && Array.isArray(brandAnswer.records)
      ? brandAnswer.records
      : undefined;
  if (entries) {
    const supported = entries
      .filter(isRecord)
      .filter((e) => typeof e.usecase === 'string' && e.qualified !== false)
      .map((e) => e.usecase as string);
    check.supportedUsecases = supported;
  }
  if (isRecord(useCaseAnswer)) {
    if (useCaseAnswer.qualified === false || useCaseAnswer.supported === false) check.supported = false;
    if (Array.isArray(useCaseAnswer.reasons))
      check.reasons = useCaseAnswer.reasons.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)));
    const metadata = mnoMetadataRecords(useCaseAnswer.mnoMetadata);
    if (metadata && Object.keys(metadata).length > 0) check.mnoMetadata = metadata;
    const fee = num(useCaseAnswer.monthlyFee);
    if (fee !== undefined) check.monthlyFee = fee;
  }
  if (!check.supported && check.reasons.length === 0)
    check.reasons = [`the campaign builder reports use case ${usecase} not supported for this brand`];
  return check;
}

/**
 * The status of the campaign's brand workflow: `brand/{account}/{ref}`, or a legacy `brand/{ref}` an
 * earlier release opened for the same account (never another account's).
 */
async function brandWorkflowStatus(
  temporal: Client,
  account: string,
  brandReference: string,
  signal: AbortSignal | undefined,
): Promise<BrandStatus | undefined> {
  const ask = async (workflowId: string) => {
    const query = () => temporal.workflow.getHandle(workflowId).query(brandStatusQuery);
    try {
      // A query waits for a workflow worker to answer it: the attempt's cancellation ends the wait.
      return await (signal ? temporal.withAbortSignal(signal, query) : query());
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  };
  const status = await ask(brandWorkflowId(account, brandReference));
  if (status) return status;
  const legacy = await migratedId(temporal, 'brand', account, brandReference);
  return legacy === undefined ? undefined : ask(legacy);
}

export function createCampaignReadActivities(
  resolve: RegistryClientResolver,
  options: CampaignActivitiesOptions = {},
): CampaignReadActivities {
  const temporal = () => options.temporalClient ?? Context.current().client;
  const lists = options.referenceLists ?? referenceListsFor(resolve);
  return {
    checkBrandReadiness: ({ account, brandReference, at }) =>
      mapRegistryErrors(async () => {
        const client = clientOf(resolve, account);
        const opts = attemptCallOptions();
        const wf = await brandWorkflowStatus(temporal(), account, brandReference, opts.signal);
        const reasons: string[] = [];
        let brandId = wf?.brandId;
        if (!wf) {
          // No brand workflow: a brand registered outside this orchestrator may still exist by reference.
          const found = await client.findBrandByReference(brandReference, opts);
          brandId = found?.brandId;
          if (!brandId)
            reasons.push(
              `no brand workflow ${brandWorkflowId(account, brandReference)} and no brand with referenceId ${brandReference}`,
            );
        } else if (wf.phase !== 'ready') {
          reasons.push(`brand workflow ${brandWorkflowId(account, brandReference)} is in phase ${wf.phase}`);
        }
        const readiness: BrandReadiness = {
          workflowPhase: wf?.phase ?? 'missing',
          contactVerified: false,
          ready: false,
          reasons,
          politicalCampaignsAffected: wf?.politicalCampaignsAffected ?? false,
        };
        if (!brandId) return readiness;
        readiness.brandId = brandId;
        // The registry confirms: "signals wake, reads decide" applies to the brand workflow's word too.
        const brand = await client.getBrand(brandId, opts);
        readiness.entityType = brand.entityType ?? wf?.entityType ?? '';
        readiness.identityStatus = brand.identityStatus ?? 'UNVERIFIED';
        readiness.brandStatus = brand.status ?? 'ACTIVE';
        const entityType = readiness.entityType as EntityType;
        const needsContact =
          (EntityTypes as readonly string[]).includes(entityType) &&
          contactVerificationRequired(entityType, new Date(at));
        readiness.contactVerified = !needsContact || Boolean(brand.businessContactEmailVerifiedDate);
        if (readiness.brandStatus !== 'ACTIVE')
          reasons.push(`the registry reports the brand ${readiness.brandStatus}`);
        if (readiness.identityStatus === 'UNVERIFIED')
          reasons.push('the registry reports the brand UNVERIFIED');
        if (!readiness.contactVerified)
          reasons.push(`the business contact of this ${entityType} brand has not completed verification`);
        readiness.ready = reasons.length === 0;
        return readiness;
      }),
    checkCampaignBuilder: ({ account, brandId, usecase }) =>
      mapRegistryErrors(async () => {
        const client = clientOf(resolve, account);
        const opts = attemptCallOptions();
        const brandAnswer = await client.getCampaignBuilderBrand(brandId, opts);
        try {
          const useCaseAnswer = await client.getCampaignBuilderUseCase(brandId, usecase, opts);
          return builderCheck(brandAnswer, useCaseAnswer, usecase);
        } catch (error) {
          if (error instanceof NotFoundError)
            return {
              supported: false,
              reasons: [`the campaign builder does not know use case ${usecase} for this brand`],
            };
          // A registry may say no with a 4xx instead of `qualified: false` (the shape is not shown).
          if (isBuilderRefusal(error))
            return {
              supported: false,
              reasons: [`the campaign builder refuses use case ${usecase}: ${error.message.slice(0, 500)}`],
            };
          throw error;
        }
      }),
    getUseCaseLimits: ({ account, usecase }) =>
      mapRegistryErrors(async () => {
        const useCases = await clientOf(resolve, account).listUseCases({}, attemptCallOptions());
        const uc = useCases[usecase];
        if (!uc) return { usecase, exists: false };
        return {
          usecase,
          exists: true,
          ...(uc.minSubUsecases !== undefined ? { minSubUsecases: uc.minSubUsecases } : {}),
          ...(uc.maxSubUsecases !== undefined ? { maxSubUsecases: uc.maxSubUsecases } : {}),
          ...(uc.classification !== undefined ? { classification: uc.classification } : {}),
        };
      }),
    findCampaignByReference: ({ account, referenceId }) =>
      mapRegistryErrors(async () => {
        const found = await clientOf(resolve, account).findCampaignByReference(
          referenceId,
          attemptCallOptions(),
        );
        return found ? campaignSnapshot(found) : null;
      }),
    getCampaign: ({ account, campaignId }) =>
      mapRegistryErrors(async () =>
        campaignSnapshot(await clientOf(resolve, account).getCampaign(campaignId, attemptCallOptions())),
      ),
    getCampaignSharing: ({ account, campaignId }) =>
      mapRegistryErrors(async () => {
        const sharing = await clientOf(resolve, account).getCampaignSharing(campaignId, attemptCallOptions());
        return sharing.sharedByMe ? sharingSnapshot(sharing.sharedByMe) : null;
      }),
    checkUpstreamPartner: ({ account, upstreamCnpId }) =>
      mapRegistryErrors(() => lists.upstreamPartner(account, upstreamCnpId, attemptCallOptions())),
  };
}

export function createCampaignWriteActivities(resolve: RegistryClientResolver): CampaignWriteActivities {
  return {
    createCampaign: ({ account, creation }) =>
      mapRegistryErrors(async () => {
        const client = clientOf(resolve, account);
        const opts = attemptCallOptions();
        // The client looks the reference up before creating and after an ambiguous failure, so a
        // retried activity (after a timeout that committed) finds the campaign instead of paying twice.
        const created = await client.createCampaign(creation, opts);
        if (!created.alreadyExisted || Object.keys(created.mnoMetadata).length > 0)
          return {
            campaignId: created.campaignId,
            mnoMetadata: mnoMetadataRecords(created.mnoMetadata) ?? {},
            alreadyExisted: created.alreadyExisted,
          };
        // Found by reference: the creation answer (and its mnoMetadata) was lost; read what the registry keeps.
        const existing = campaignSnapshot(await client.getCampaign(created.campaignId, opts));
        return {
          campaignId: created.campaignId,
          mnoMetadata: existing.mnoMetadata ?? {},
          alreadyExisted: true,
        };
      }),
    updateCampaign: ({ account, campaignId, patch }) =>
      mapRegistryErrors(async () =>
        campaignSnapshot(
          await clientOf(resolve, account).updateCampaign(campaignId, patch, attemptCallOptions()),
        ),
      ),
    shareCampaign: ({ account, campaignId, upstreamCnpId }) =>
      mapRegistryErrors(async () =>
        sharingSnapshot(
          await clientOf(resolve, account).shareCampaign(campaignId, upstreamCnpId, attemptCallOptions()),
        ),
      ),
  };
}

export function createCampaignActivities(
  resolve: RegistryClientResolver,
  options: CampaignActivitiesOptions = {},
): CampaignActivities {
  return { ...createCampaignReadActivities(resolve, options), ...createCampaignWriteActivities(resolve) };
}
