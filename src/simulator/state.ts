import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** In-memory store of everything the simulator knows, persisted as one JSON file when a stateFile is set. */

export type IdentityStatus = 'SELF_DECLARED' | 'UNVERIFIED' | 'VERIFIED' | 'VETTED_VERIFIED';

export interface BrandRecord {
  brandId: string;
  cspId: string;
  referenceId: string | null;
  entityType: string;
  status: 'ACTIVE' | 'DELETED';
  identityStatus: IdentityStatus;
  displayName: string;
  companyName: string | null;
  ein: string | null;
  einIssuingCountry: string | null;
  universalEin: string | null;
  phone: string | null;
  mobilePhone: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string;
  email: string;
  website: string | null;
  stockSymbol: string | null;
  stockExchange: string | null;
  brandRelationship: string | null;
  vertical: string | null;
  altBusinessId: string | null;
  altBusinessIdType: string | null;
  optionalAttributes: Record<string, string | number | boolean>;
  mock: boolean;
  createDate: string;
  businessContactTitle: string | null;
  businessContactFirstName: string | null;
  businessContactLastName: string | null;
  businessContactEmail: string | null;
  businessContactEmailVerifiedDate: string | null;
  /** Sole proprietors' "further verification" (one-time password to the mobile phone). */
  mobilePhoneVerifiedDate: string | null;
}

export interface BrandInternal {
  lastGroup3UpdateAt: string | null;
  appeal: { status: 'PENDING' | 'APPROVED' | 'REJECTED'; categories: string[]; createdAt: string } | null;
}

export interface VetRecord {
  brandId: string;
  evpId: string;
  vettingId: string;
  vettingToken: string | null;
  vettingScore: number | null;
  vettingClass: 'STANDARD' | 'ENHANCED' | 'POLITICAL';
  vettingStatus: 'PENDING' | 'UNSCORE' | 'ACTIVE' | 'FAILED' | 'EXPIRED';
  reasons: string[] | null;
  vettingDetails: Record<string, unknown>;
  vettedDate: string | null;
  createDate: string;
  /** When an ACTIVE vet lapses (simulator-defined validity per class). */
  expiresAt: string | null;
}

export interface SharingRecord {
  downstreamCnpId: string;
  upstreamCnpId: string;
  sharingStatus: 'PENDING' | 'ACCEPTED' | 'DECLINED';
  explanation: string | null;
  sharedDate: string;
  statusDate: string;
  cnpMigration: boolean;
}

export interface CampaignRecord {
  campaignId: string;
  cspId: string;
  resellerId: string;
  brandId: string;
  status: 'ACTIVE' | 'EXPIRED';
  createDate: string;
  billedDate: string;
  autoRenewal: boolean;
  nextRenewalOrExpirationDate: string;
  expirationDate: string | null;
  vertical: string | null;
  usecase: string;
  subUsecases: string[];
  description: string;
  embeddedLink: boolean;
  embeddedPhone: boolean;
  termsAndConditions: boolean;
  numberPool: boolean;
  ageGated: boolean;
  directLending: boolean;
  subscriberOptin: boolean;
  subscriberOptout: boolean;
  subscriberHelp: boolean;
  sample1: string | null;
  sample2: string | null;
  sample3: string | null;
  sample4: string | null;
  sample5: string | null;
  messageFlow: string | null;
  helpMessage: string | null;
  optinMessage: string | null;
  optoutMessage: string | null;
  optinKeywords: string | null;
  optoutKeywords: string | null;
  helpKeywords: string | null;
  privacyPolicyLink: string | null;
  termsAndConditionsLink: string | null;
  embeddedLinkSample: string | null;
  referenceId: string | null;
  mock: boolean;
  tag: string[];
  mnoIDs: number[];
  monthlyFee: number;
  mnoMetadata: Record<string, unknown>;
  /** Simulator extension: per-MNO operation status ('PENDING' until DCA acceptance, then 'REGISTERED' or 'SUSPENDED'). */
  mnoOperationStatus: Record<string, 'PENDING' | 'REGISTERED' | 'SUSPENDED'>;
}

export interface CampaignInternal {
  updatedAt: string;
  /** Set by an update after the last decline (a resubmission to the same partner needs a change). */
  changedSinceDecline: boolean;
  sharing: SharingRecord | null;
  /** DCAs the campaign was submitted to through the sharing chain, and whether each accepted. */
  dcas: { dcaId: string; accepted: boolean }[];
  dcaComplete: boolean;
}

export interface Subscription {
  eventCategory: string;
  webhookEndpoint: string;
  secret: string;
  digestEncoding: 'base64' | 'hex';
}

export interface QueuedEvent {
  deliveryId: string;
  category: string;
  event: Record<string, unknown>;
  enqueuedAt: string;
  /** Failed attempts answered with 4xx/5xx (at most 13 retries, then discard). */
  httpFailures: number;
  networkFailures: number;
  nextAttemptAt: number;
  /** Set on a copy made by a 'webhook-duplicate' fault. */
  duplicateOf?: string;
}

export interface DeliveryLogEntry {
  deliveryId: string;
  cspId: string;
  eventType: string;
  category: string;
  attempt: number;
  at: string;
  endpoint: string | null;
  status: number | null;
  error: string | null;
  outcome: 'DELIVERED' | 'RETRY' | 'DISCARDED' | 'NETWORK_RETRY' | 'DROPPED' | 'NO_SUBSCRIPTION';
  retryCount: number;
  nextAttemptAt: string | null;
  signature256: string | null;
  signature1: string | null;
  badSignature: boolean;
  duplicate: boolean;
  event: Record<string, unknown>;
}

export interface LedgerEntry {
  entryId: string;
  cspId: string;
  kind: 'CAMPAIGN_REGISTRATION' | 'CAMPAIGN_RENEWAL';
  campaignId: string;
  brandId: string;
  usecase: string;
  amount: number;
  at: string;
}

export interface AccountState {
  brands: Record<string, BrandRecord>;
  brandInternal: Record<string, BrandInternal>;
  campaigns: Record<string, CampaignRecord>;
  campaignInternal: Record<string, CampaignInternal>;
  vets: Record<string, VetRecord>;
  subscriptions: Record<string, Subscription>;
  webhookDefaults: { secret: string | null; digestEncoding: 'base64' | 'hex' };
  ledger: LedgerEntry[];
  queue: QueuedEvent[];
  deliveries: DeliveryLogEntry[];
}

export interface Job {
  id: string;
  kind: string;
  dueAt: number;
  data: Record<string, string>;
}

export interface SimState {
  version: 1;
  seq: number;
  clockOffsetMs: number;
  accounts: Record<string, AccountState>;
  jobs: Job[];
}

export function emptyAccount(): AccountState {
  return {
    brands: {},
    brandInternal: {},
    campaigns: {},
    campaignInternal: {},
    vets: {},
    subscriptions: {},
    webhookDefaults: { secret: null, digestEncoding: 'base64' },
    ledger: [],
    queue: [],
    deliveries: [],
  };
}

export function emptyState(): SimState {
  return { version: 1, seq: 0, clockOffsetMs: 0, accounts: {}, jobs: [] };
}

const MAX_DELIVERY_LOG = 5000;

/**
 * Derived, in-memory only (rebuilt from the maps after a load or reset): an account's brands and
 * campaigns in id order, and its campaigns per brand, so a list page is a slice rather than a copy and
 * sort of the whole estate. Ids come from one increasing sequence, so a new record is always appended.
 */
interface AccountIndex {
  brands: BrandRecord[];
  campaigns: CampaignRecord[];
  campaignsByBrand: Map<string, CampaignRecord[]>;
}

/** Id order: the sequence part is zero-padded base 36, so a longer id is a later one. */
function byId(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export class Store {
  state: SimState;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private indexes = new Map<string, AccountIndex>();
  /** How long the last write of the state file took: the next one waits at least 4 times as long. */
  private lastFlushMs = 0;

  constructor(
    private readonly file: string | undefined,
    private readonly offsetNow: () => number,
  ) {
    this.state = file ? loadState(file) : emptyState();
  }

  account(cspId: string): AccountState {
    let account = this.state.accounts[cspId];
    if (!account) {
      account = emptyAccount();
      this.state.accounts[cspId] = account;
    }
    return account;
  }

  private index(cspId: string): AccountIndex {
    let index = this.indexes.get(cspId);
    if (!index) {
      const account = this.account(cspId);
      const brands = Object.values(account.brands).sort((a, b) => byId(a.brandId, b.brandId));
      const campaigns = Object.values(account.campaigns).sort((a, b) => byId(a.campaignId, b.campaignId));
      const campaignsByBrand = new Map<string, CampaignRecord[]>();
      for (const campaign of campaigns) {
        const list = campaignsByBrand.get(campaign.brandId);
        if (list) list.push(campaign);
        else campaignsByBrand.set(campaign.brandId, [campaign]);
      }
      index = { brands, campaigns, campaignsByBrand };
      this.indexes.set(cspId, index);
    }
    return index;
  }

  /** Adds a new brand (its id from {@link nextId}) to the account and to its list index. */
  addBrand(cspId: string, brand: BrandRecord, internal: BrandInternal): void {
    const index = this.index(cspId);
    const account = this.account(cspId);
    account.brands[brand.brandId] = brand;
    account.brandInternal[brand.brandId] = internal;
    index.brands.push(brand);
  }

  /** Adds a new campaign (its id from {@link nextId}) to the account and to its list indexes. */
  addCampaign(cspId: string, campaign: CampaignRecord, internal: CampaignInternal): void {
    const index = this.index(cspId);
    const account = this.account(cspId);
    account.campaigns[campaign.campaignId] = campaign;
    account.campaignInternal[campaign.campaignId] = internal;
    index.campaigns.push(campaign);
    const list = index.campaignsByBrand.get(campaign.brandId);
    if (list) list.push(campaign);
    else index.campaignsByBrand.set(campaign.brandId, [campaign]);
  }

  /** The account's brands in id order (the live index: do not modify). */
  brandList(cspId: string): readonly BrandRecord[] {
    return this.index(cspId).brands;
  }

  /** The account's campaigns in id order, all or one brand's (the live index: do not modify). */
  campaignList(cspId: string, brandId?: string): readonly CampaignRecord[] {
    const index = this.index(cspId);
    return brandId === undefined ? index.campaigns : (index.campaignsByBrand.get(brandId) ?? []);
  }

  nextId(prefix: string): string {
    this.state.seq += 1;
    return `${prefix}${this.state.seq.toString(36).toUpperCase().padStart(6, '0')}`;
  }

  logDelivery(cspId: string, entry: DeliveryLogEntry): void {
    const log = this.account(cspId).deliveries;
    log.push(entry);
    if (log.length > MAX_DELIVERY_LOG) log.splice(0, log.length - MAX_DELIVERY_LOG);
  }

  /** Marks the state changed; the file is written (temp file + rename) shortly after. */
  changed(): void {
    if (!this.file) return;
    this.dirty = true;
    if (this.timer) return;
    // A large estate takes a while to serialize: waiting 4x the last write keeps writing under ~20 %
    // of the time (a 100,000-registration state is written at most every few seconds).
    this.timer = setTimeout(() => this.flush(), Math.max(5, 4 * this.lastFlushMs));
  }

  /** Writes now if anything changed (or always with `force`, e.g. at close, to keep the clock offset). */
  flush(force = false): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.file || !(this.dirty || force)) return;
    this.dirty = false;
    const started = performance.now();
    this.state.clockOffsetMs = this.offsetNow();
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    // The state holds webhook secrets: owner-only, whatever the umask (and a leftover temp's mode).
    writeFileSync(temp, JSON.stringify(this.state), { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, this.file);
    this.lastFlushMs = performance.now() - started;
  }

  /** Forgets everything except the id sequence, so ids are never reused within a process. */
  reset(): void {
    const seq = this.state.seq;
    this.state = emptyState();
    this.state.seq = seq;
    this.indexes.clear();
    this.changed();
  }
}

function loadState(file: string): SimState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
    throw err;
  }
  const parsed = JSON.parse(text) as SimState;
  if (parsed.version !== 1 || typeof parsed.accounts !== 'object') {
    throw new Error(`simulator state file ${file} has an unknown format`);
  }
  return parsed;
}
