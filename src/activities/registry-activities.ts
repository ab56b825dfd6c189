/**
 * The registry activities. They take the CSP account's NAME; `clients` resolves it to a configured
 * RegistryClient (credentials stay in worker configuration). Results are trimmed to the records in
 * ./types.ts, so workflow history holds no more than workflows decide on. Every registry call gets
 * the attempt's cancellation signal (./heartbeat.ts): a cancelled or timed-out attempt stops waiting
 * in the client's rate limiter and aborts its HTTP request. Workers wrap these maps in `withHeartbeat`.
 */
import { Context } from '@temporalio/activity';
import type {
  BrandSnapshot,
  RegistryActivities,
  RegistryReadActivities,
  RegistryWriteActivities,
  VetRecord,
} from '../contracts/activity-types.js';
import type { Brand, ExternalVet, VetOrder } from '../registry/schemas.js';
import { clientOf, type RegistryClientResolver } from './client-of.js';
import { mapRegistryErrors } from './failures.js';
import { attemptCallOptions } from './heartbeat.js';
import { vettingProviderOfferActivity } from './reference-lists.js';

export { clientOf, type RegistryClientResolver } from './client-of.js';

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function brandSnapshot(brand: Brand): BrandSnapshot {
  return {
    brandId: brand.brandId,
    referenceId: brand.referenceId ?? null,
    entityType: brand.entityType ?? '',
    status: brand.status ?? 'ACTIVE',
    identityStatus: brand.identityStatus ?? 'UNVERIFIED',
    businessContactEmailVerifiedDate: brand.businessContactEmailVerifiedDate ?? null,
    mobilePhoneVerifiedDate: stringOrNull((brand as Record<string, unknown>).mobilePhoneVerifiedDate),
    optionalAttributes: brand.optionalAttributes ?? {},
  };
}

export function vetRecord(vet: ExternalVet): VetRecord {
  return {
    evpId: vet.evpId,
    vettingId: vet.vettingId ?? null,
    vettingClass: vet.vettingClass ?? null,
    vettingStatus: vet.vettingStatus ?? 'PENDING',
    vettingScore: vet.vettingScore ?? null,
    reasons: vet.reasons ? vet.reasons.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))) : null,
    vettedDate: (vet.vettedDate as string | null | undefined) ?? null,
    createDate: (vet.createDate as string | null | undefined) ?? null,
  };
}

function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1; // called outside an activity (unit tests)
  }
}

export function createRegistryReadActivities(resolve: RegistryClientResolver): RegistryReadActivities {
  return {
    getBrand: ({ account, brandId }) =>
      mapRegistryErrors(async () =>
        brandSnapshot(await clientOf(resolve, account).getBrand(brandId, attemptCallOptions())),
      ),
    findBrandByReference: ({ account, referenceId }) =>
      mapRegistryErrors(async () => {
        const brand = await clientOf(resolve, account).findBrandByReference(
          referenceId,
          attemptCallOptions(),
        );
        return brand ? brandSnapshot(brand) : null;
      }),
    vettingProviderOffer: vettingProviderOfferActivity(resolve),
    listExternalVets: ({ account, brandId }) =>
      mapRegistryErrors(async () =>
        (await clientOf(resolve, account).listExternalVets(brandId, attemptCallOptions())).map(vetRecord),
      ),
    brandUseCaseSupport: ({ account, brandId, usecase }) =>
      mapRegistryErrors(() =>
        clientOf(resolve, account).useCaseSupport(brandId, usecase, attemptCallOptions()),
      ),
    countActiveCampaigns: ({ account, brandId }) =>
      mapRegistryErrors(async () => {
        let count = 0;
        for await (const campaign of clientOf(resolve, account).campaigns(
          { brandId },
          attemptCallOptions(),
        )) {
          if (campaign.status === 'ACTIVE') count++;
        }
        return count;
      }),
  };
}

export function createRegistryWriteActivities(resolve: RegistryClientResolver): RegistryWriteActivities {
  return {
    registerBrand: ({ account, registration }) =>
      mapRegistryErrors(async () =>
        brandSnapshot(await clientOf(resolve, account).registerBrand(registration, attemptCallOptions())),
      ),
    updateBrand: ({ account, brandId, patch }) =>
      mapRegistryErrors(async () =>
        brandSnapshot(await clientOf(resolve, account).updateBrand(brandId, patch, attemptCallOptions())),
      ),
    revetBrand: ({ account, brandId }) =>
      mapRegistryErrors(async () =>
        brandSnapshot(await clientOf(resolve, account).revetBrand(brandId, attemptCallOptions())),
      ),
    appealBrand: ({ account, brandId, appeal }) =>
      mapRegistryErrors(() => clientOf(resolve, account).appealBrand(brandId, appeal, attemptCallOptions())),
    orderExternalVet: ({ account, brandId, evpId, vettingClass, adoptInProgress, politicalPayload }) =>
      mapRegistryErrors(async () => {
        const client = clientOf(resolve, account);
        const opts = attemptCallOptions();
        // A vet order may be billed. On a retry (an earlier attempt, or an earlier call the workflow
        // made, may have reached the registry before it failed), a vet of this provider and class still
        // in progress is the one we ordered.
        if (adoptInProgress || currentAttempt() > 1) {
          const existing = (await client.listExternalVets(brandId, opts)).find(
            (v) =>
              v.evpId === evpId &&
              v.vettingClass === vettingClass &&
              (v.vettingStatus === 'PENDING' || v.vettingStatus === 'UNSCORE'),
          );
          if (existing) return vetRecord(existing);
        }
        return vetRecord(
          await client.orderExternalVet(
            brandId,
            {
              evpId,
              vettingClass: vettingClass as 'STANDARD' | 'ENHANCED' | 'POLITICAL',
              ...(politicalPayload
                ? { politicalPayload: politicalPayload as VetOrder['politicalPayload'] }
                : {}),
            },
            opts,
          ),
        );
      }),
    importExternalVet: ({ account, brandId, evpId, vettingId, vettingToken }) =>
      mapRegistryErrors(async () =>
        vetRecord(
          await clientOf(resolve, account).importExternalVet(
            brandId,
            {
              evpId,
              vettingId,
              ...(vettingToken ? { vettingToken } : {}),
            },
            attemptCallOptions(),
          ),
        ),
      ),
  };
}

export function createRegistryActivities(resolve: RegistryClientResolver): RegistryActivities {
  return { ...createRegistryReadActivities(resolve), ...createRegistryWriteActivities(resolve) };
}
