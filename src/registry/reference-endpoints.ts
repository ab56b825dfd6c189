/**
 * The registry's reference lists (`/enum/*`): DCAs, MNOs, use cases, verticals, vetting providers and
 * classes, and the other enumerations. Reads only. A layer of `RegistryClient` (./client-core.ts).
 */
import { z } from 'zod';
import { type CallOptions, RegistryClientCore } from './client-core.js';
import {
  type AppealCategory,
  AppealCategorySchema,
  type BrandAppealCategory,
  BrandAppealCategorySchema,
  type ConnectivityPartner,
  ConnectivityPartnerSchema,
  type Dca,
  type DcaFilter,
  DcaSchema,
  type Mno,
  MnoSchema,
  type OptionalAttributeName,
  OptionalAttributeNameSchema,
  StringListSchema,
  type UseCaseFilter,
  type UseCaseMap,
  UseCaseMapSchema,
  type UsStateMap,
  UsStateMapSchema,
  type VerticalMap,
  VerticalMapSchema,
  type VettingClassRecord,
  VettingClassRecordSchema,
  type VettingProvider,
  VettingProviderSchema,
} from './schemas.js';

export class RegistryReferenceEndpoints extends RegistryClientCore {
  listDcas(filter: DcaFilter = {}, opts: CallOptions = {}): Promise<Dca[]> {
    return this.get('/enum/dca', DcaSchema.array(), { ...filter }, opts);
  }
  listMnos(opts: CallOptions = {}): Promise<Mno[]> {
    return this.get('/enum/mno', MnoSchema.array(), undefined, opts);
  }
  listOptionalAttributeNames(opts: CallOptions = {}): Promise<OptionalAttributeName[]> {
    return this.get('/enum/optionalAttributeNames', OptionalAttributeNameSchema.array(), undefined, opts);
  }
  listUseCases(filter: UseCaseFilter = {}, opts: CallOptions = {}): Promise<UseCaseMap> {
    return this.get('/enum/usecase', UseCaseMapSchema, { ...filter }, opts);
  }
  listVerticals(opts: CallOptions = {}): Promise<VerticalMap> {
    return this.get('/enum/vertical', VerticalMapSchema, undefined, opts);
  }
  listAltBusinessIdTypes(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/altBusinessIdType', StringListSchema, undefined, opts);
  }
  listBrandIdentityStatuses(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/brandIdentityStatus', StringListSchema, undefined, opts);
  }
  listBrandRelationships(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/brandRelationship', StringListSchema, undefined, opts);
  }
  listCampaignStatuses(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/campaignStatus', StringListSchema, undefined, opts);
  }
  listEntityTypes(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/entityType', StringListSchema, undefined, opts);
  }
  listVettingProviders(opts: CallOptions = {}): Promise<VettingProvider[]> {
    return this.get('/enum/extVettingProvider', VettingProviderSchema.array(), undefined, opts);
  }
  listVettingStatuses(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/vettingStatus', StringListSchema, undefined, opts);
  }
  listUsStates(opts: CallOptions = {}): Promise<UsStateMap> {
    return this.get('/enum/usState', UsStateMapSchema, undefined, opts);
  }
  listAssetAppealCategories(opts: CallOptions = {}): Promise<AppealCategory[]> {
    return this.get('/enum/assetAppealCategory', AppealCategorySchema.array(), undefined, opts);
  }
  listBrandAppealCategories(opts: CallOptions = {}): Promise<BrandAppealCategory[]> {
    return this.get('/enum/brandAppealCategory', BrandAppealCategorySchema.array(), undefined, opts);
  }
  listConnectivityPartners(opts: CallOptions = {}): Promise<ConnectivityPartner[]> {
    return this.get('/enum/cnp', ConnectivityPartnerSchema.array(), undefined, opts);
  }
  listVettingClasses(opts: CallOptions = {}): Promise<VettingClassRecord[]> {
    return this.get('/enum/vettingClass', VettingClassRecordSchema.array(), undefined, opts);
  }
  /**
   * Lenient reads for readers that decide on a list (src/activities/reference-lists.ts): the body as
   * the registry sent it, only checked to be JSON (and an array where the spec says one), so one odd
   * record or an unparseable `vettingInstruction` does not lose the whole list.
   */
  readDcasRaw(opts: CallOptions = {}): Promise<unknown[]> {
    return this.get('/enum/dca', z.array(z.unknown()), undefined, opts);
  }
  /** `/enum/cnp`, whose response shape the spec does not show: any JSON. */
  readConnectivityPartnersRaw(opts: CallOptions = {}): Promise<unknown> {
    return this.get('/enum/cnp', z.unknown(), undefined, opts);
  }
  readVettingProvidersRaw(opts: CallOptions = {}): Promise<unknown[]> {
    return this.get('/enum/extVettingProvider', z.array(z.unknown()), undefined, opts);
  }
}
