/**
 * The registry's reference lists that decisions rest on, cached per account in the worker process:
 *
 * - `/enum/dca`: the DCA ids;
 * - `/enum/cnp`: the connectivity partners. The spec does not show the response's shape, so the raw
 *   JSON is kept and "is this id listed" means: the id occurs anywhere in it as a string value or as
 *   an object key (an array of ids, records under any key name, an object keyed by id all answer);
 * - `/enum/extVettingProvider`: the vetting providers, whose `vettingInstruction` (a string holding
 *   JSON) is parsed leniently: what cannot be read is "unknown", never a failed list.
 *
 * Refresh: a list read more than `maxAgeMs` (1 hour) ago is read again; a lookup whose answer would
 * refuse (not listed, class not offered, not supported) in a list read more than `missRefreshAfterMs`
 * (5 minutes) ago reads it again once before answering. Concurrent lookups share one read. Reads go
 * through the account's registry client (its rate limiter and read budget apply) with the calling
 * activity's cancellation signal; a waiter whose own signal fires stops waiting, and a waiter whose
 * shared read was aborted by another caller's cancellation reads for itself.
 */
import { isRecord } from '../common/is-record.js';
import type { ReferenceListActivities, VettingProviderOffer } from '../contracts/activity-types.js';
import type { UpstreamPartnerCheck } from '../contracts/campaign-activity-types.js';
import type { CallOptions, RegistryClient } from '../registry/client.js';
import { RegistryAbortedError } from '../registry/errors.js';
import { clientOf, type RegistryClientResolver } from './client-of.js';
import { mapRegistryErrors } from './failures.js';
import { attemptCallOptions } from './heartbeat.js';

/** The registry client calls this module makes (tests pass a fake). */
export type ReferenceListClient = Pick<
  RegistryClient,
  'readDcasRaw' | 'readConnectivityPartnersRaw' | 'readVettingProvidersRaw'
>;

export interface ReferenceListsOptions {
  /** Clock in epoch ms (tests); default Date.now. */
  now?: () => number;
  /** A list older than this is read again before it answers; default 1 hour. */
  maxAgeMs?: number;
  /** A refusing answer from a list older than this reads it again once first; default 5 minutes. */
  missRefreshAfterMs?: number;
}

export const REFERENCE_LIST_MAX_AGE_MS = 60 * 60_000;
export const REFERENCE_LIST_MISS_REFRESH_MS = 5 * 60_000;

/** One vetting provider as its record says, read leniently. */
export interface VettingProviderEntry {
  evpId: string;
  /** `vettingClasses` when it is a non-empty array (its string members); otherwise unknown. */
  vettingClasses: string[] | undefined;
  /** `vettingInstruction.newVet.supported`; 'unknown' when absent, not a boolean, or unparseable. */
  newVetSupported: boolean | 'unknown';
  /** `vettingInstruction.importVet.supported`, likewise. */
  importVetSupported: boolean | 'unknown';
}

interface Snapshot<T> {
  value: T;
  readAt: number;
}

interface Lists {
  dca: Set<string>;
  cnp: Set<string>;
  extVettingProvider: Map<string, VettingProviderEntry>;
}
type ListName = keyof Lists;

interface Entry<T> {
  snapshot?: Snapshot<T>;
  inFlight?: Promise<Snapshot<T>>;
}

/** Every string value and object key in `json` (depth-bounded: the list is small, a cycle impossible). */
export function stringsAndKeysOf(json: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > 16) return out;
  if (typeof json === 'string') out.add(json);
  else if (Array.isArray(json)) for (const item of json) stringsAndKeysOf(item, out, depth + 1);
  else if (isRecord(json))
    for (const [key, value] of Object.entries(json)) {
      out.add(key);
      stringsAndKeysOf(value, out, depth + 1);
    }
  return out;
}

function dcaIdsOf(records: unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const record of records) {
    if (typeof record === 'string') ids.add(record);
    else if (isRecord(record) && typeof record.id === 'string') ids.add(record.id);
  }
  return ids;
}

/** `vettingInstruction` (a JSON string, or an object already parsed) → its two `supported` flags. */
export function parseVettingInstruction(
  raw: unknown,
): Pick<VettingProviderEntry, 'newVetSupported' | 'importVetSupported'> {
  let instruction: unknown = raw;
  if (typeof raw === 'string') {
    try {
      instruction = JSON.parse(raw);
    } catch {
      instruction = undefined;
    }
  }
  const flag = (part: unknown): boolean | 'unknown' =>
    isRecord(part) && typeof part.supported === 'boolean' ? part.supported : 'unknown';
  if (!isRecord(instruction)) return { newVetSupported: 'unknown', importVetSupported: 'unknown' };
  return { newVetSupported: flag(instruction.newVet), importVetSupported: flag(instruction.importVet) };
}

function vettingProvidersOf(records: unknown[]): Map<string, VettingProviderEntry> {
  const providers = new Map<string, VettingProviderEntry>();
  for (const record of records) {
    if (!isRecord(record) || typeof record.evpId !== 'string' || record.evpId.length === 0) continue;
    const classes = Array.isArray(record.vettingClasses)
      ? record.vettingClasses.filter((c): c is string => typeof c === 'string')
      : [];
    providers.set(record.evpId, {
      evpId: record.evpId,
      vettingClasses: classes.length > 0 ? classes : undefined,
      ...parseVettingInstruction(record.vettingInstruction),
    });
  }
  return providers;
}

const loaders: { [L in ListName]: (client: ReferenceListClient, opts: CallOptions) => Promise<Lists[L]> } = {
  dca: async (client, opts) => dcaIdsOf(await client.readDcasRaw(opts)),
  cnp: async (client, opts) => stringsAndKeysOf(await client.readConnectivityPartnersRaw(opts)),
  extVettingProvider: async (client, opts) => vettingProvidersOf(await client.readVettingProvidersRaw(opts)),
};

/** Resolves with `promise`, or rejects when `signal` fires first (the promise itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the reference-list read was cancelled');
}

/** The cache. One per worker process (see `referenceListsFor`); tests make their own. */
export class ReferenceLists {
  readonly #client: (account: string) => ReferenceListClient;
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  readonly #missRefreshAfterMs: number;
  readonly #entries = new Map<string, Entry<unknown>>();

  constructor(client: (account: string) => ReferenceListClient, options: ReferenceListsOptions = {}) {
    this.#client = client;
    this.#now = options.now ?? Date.now;
    this.#maxAgeMs = options.maxAgeMs ?? REFERENCE_LIST_MAX_AGE_MS;
    this.#missRefreshAfterMs = options.missRefreshAfterMs ?? REFERENCE_LIST_MISS_REFRESH_MS;
  }

  /** Forgets every list (tests, or an operator who knows a list changed). */
  clear(): void {
    this.#entries.clear();
  }

  /**
   * The list, from the cache while it is younger than maxAgeMs. `olderThan`: a snapshot read at or
   * before this instant is not good enough (a refusing answer's re-read); a read in flight is.
   */
  async list<L extends ListName>(
    account: string,
    name: L,
    opts: CallOptions = {},
    olderThan?: number,
  ): Promise<Snapshot<Lists[L]>> {
    const key = `${account}\u0000${name}`;
    let entry = this.#entries.get(key) as Entry<Lists[L]> | undefined;
    if (!entry) {
      entry = {};
      this.#entries.set(key, entry as Entry<unknown>);
    }
    const { snapshot } = entry;
    if (
      snapshot &&
      this.#now() - snapshot.readAt < this.#maxAgeMs &&
      (olderThan === undefined || snapshot.readAt > olderThan)
    )
      return snapshot;
    if (entry.inFlight) {
      try {
        return await untilAborted(entry.inFlight, opts.signal);
      } catch (error) {
        // The shared read was cancelled by its starter's signal, not ours: read for ourselves.
        if (!(error instanceof RegistryAbortedError) || opts.signal?.aborted) throw error;
        if (entry.inFlight) return untilAborted(entry.inFlight, opts.signal);
      }
    }
    return this.#read(entry, name, account, opts);
  }

  #read<L extends ListName>(
    entry: Entry<Lists[L]>,
    name: L,
    account: string,
    opts: CallOptions,
  ): Promise<Snapshot<Lists[L]>> {
    const load = loaders[name] as (client: ReferenceListClient, opts: CallOptions) => Promise<Lists[L]>;
    const read = (async () => {
      const value = await load(this.#client(account), opts.signal ? { signal: opts.signal } : {});
      const snapshot = { value, readAt: this.#now() };
      entry.snapshot = snapshot;
      return snapshot;
    })();
    entry.inFlight = read;
    const clear = () => {
      if (entry.inFlight === read) entry.inFlight = undefined;
    };
    read.then(clear, clear);
    return read;
  }

  /**
   * `lookup` on the list; when its answer refuses (`refuses`) and the list was read more than
   * missRefreshAfterMs ago, the list is read again once and asked again.
   */
  async #answer<L extends ListName, A>(
    account: string,
    name: L,
    opts: CallOptions,
    lookup: (list: Lists[L], readAt: number) => A,
    refuses: (answer: A) => boolean,
  ): Promise<A> {
    const first = await this.list(account, name, opts);
    const answer = lookup(first.value, first.readAt);
    if (!refuses(answer) || this.#now() - first.readAt <= this.#missRefreshAfterMs) return answer;
    const again = await this.list(account, name, opts, first.readAt);
    return lookup(again.value, again.readAt);
  }

  /** Whether `cnpId` is a listed connectivity partner (`/enum/cnp`, or a DCA id), and whether it is a DCA. */
  async upstreamPartner(
    account: string,
    cnpId: string,
    opts: CallOptions = {},
  ): Promise<UpstreamPartnerCheck> {
    let [dca, cnp] = await Promise.all([this.list(account, 'dca', opts), this.list(account, 'cnp', opts)]);
    const answer = (): UpstreamPartnerCheck => ({
      upstreamCnpId: cnpId,
      listed: dca.value.has(cnpId) || cnp.value.has(cnpId),
      dca: dca.value.has(cnpId),
      checkedAt: new Date(Math.min(dca.readAt, cnp.readAt)).toISOString(),
    });
    const first = answer();
    if (first.listed) return first;
    const stale = (readAt: number) => this.#now() - readAt > this.#missRefreshAfterMs;
    if (!stale(dca.readAt) && !stale(cnp.readAt)) return first;
    [dca, cnp] = await Promise.all([
      stale(dca.readAt) ? this.list(account, 'dca', opts, dca.readAt) : dca,
      stale(cnp.readAt) ? this.list(account, 'cnp', opts, cnp.readAt) : cnp,
    ]);
    return answer();
  }

  /** What the provider's record says about ordering (`kind: 'order'`) or importing a vet of this class. */
  vettingProviderOffer(
    account: string,
    evpId: string,
    vettingClass: string | null | undefined,
    kind: 'order' | 'import',
    opts: CallOptions = {},
  ): Promise<VettingProviderOffer> {
    return this.#answer(
      account,
      'extVettingProvider',
      opts,
      (providers, readAt) => offerOf(providers.get(evpId), evpId, vettingClass, kind, readAt),
      (offer) => !offerAllows(offer),
    );
  }
}

/** An offer that does not refuse: known, class not refused, support not refused ('unknown' goes on). */
export function offerAllows(offer: VettingProviderOffer): boolean {
  return offer.known && offer.classOffered !== false && offer.supported !== false;
}

function offerOf(
  provider: VettingProviderEntry | undefined,
  evpId: string,
  vettingClass: string | null | undefined,
  kind: 'order' | 'import',
  readAt: number,
): VettingProviderOffer {
  const checkedAt = new Date(readAt).toISOString();
  if (!provider)
    return {
      known: false,
      classOffered: false,
      supported: false,
      reason: `vetting provider ${evpId} is not in the registry's list of vetting providers (/enum/extVettingProvider)`,
      checkedAt,
    };
  const classOffered: boolean | 'unknown' =
    !vettingClass || !provider.vettingClasses ? 'unknown' : provider.vettingClasses.includes(vettingClass);
  const supported = kind === 'order' ? provider.newVetSupported : provider.importVetSupported;
  const what = kind === 'order' ? 'new vet orders' : 'vet imports';
  let reason: string;
  if (classOffered === false)
    reason = `vetting provider ${evpId} does not offer ${vettingClass} vets (it lists ${provider.vettingClasses?.join(', ')})`;
  else if (supported === false)
    reason =
      kind === 'order'
        ? `vetting provider ${evpId} does not take new vet orders through the registry (vettingInstruction newVet.supported is false)${provider.importVetSupported === true ? '; import an existing vet instead' : ''}`
        : `vetting provider ${evpId} does not support importing vets (vettingInstruction importVet.supported is false)`;
  else if (supported === 'unknown')
    reason = `vetting provider ${evpId}'s vettingInstruction does not say whether it supports ${what}; the registry decides`;
  else if (!vettingClass) reason = `vetting provider ${evpId} supports ${what}`;
  else if (classOffered === 'unknown')
    reason = `vetting provider ${evpId} supports ${what}; its classes are not listed, the registry decides on the class`;
  else reason = `vetting provider ${evpId} offers ${vettingClass} and supports ${what}`;
  return {
    known: true,
    classOffered,
    supported,
    reason,
    checkedAt,
    ...(provider.vettingClasses ? { vettingClasses: provider.vettingClasses } : {}),
  };
}

/**
 * What `records` (an `/enum/extVettingProvider` body as the registry sent it) say about ordering or
 * importing a vet: the same reading as the cache's, for callers holding a list (test doubles).
 */
export function vettingProviderOfferIn(
  records: unknown[],
  evpId: string,
  vettingClass: string | null | undefined,
  kind: 'order' | 'import',
  readAt: number,
): VettingProviderOffer {
  return offerOf(vettingProvidersOf(records).get(evpId), evpId, vettingClass, kind, readAt);
}

const sharedLists = new WeakMap<RegistryClientResolver, ReferenceLists>();

/** The process's cache for this resolver: every caller with the same resolver shares it. */
export function referenceListsFor(
  resolve: RegistryClientResolver,
  options?: ReferenceListsOptions,
): ReferenceLists {
  let lists = sharedLists.get(resolve);
  if (!lists) {
    lists = new ReferenceLists((account) => clientOf(resolve, account), options);
    sharedLists.set(resolve, lists);
  }
  return lists;
}

const listsOf = (source: RegistryClientResolver | ReferenceLists): ReferenceLists =>
  source instanceof ReferenceLists ? source : referenceListsFor(source);

/** The activity `vettingProviderOffer` (a read). */
export function vettingProviderOfferActivity(
  source: RegistryClientResolver | ReferenceLists,
): ReferenceListActivities['vettingProviderOffer'] {
  const lists = listsOf(source);
  return ({ account, evpId, vettingClass, kind }) =>
    mapRegistryErrors(() =>
      lists.vettingProviderOffer(account, evpId, vettingClass, kind, attemptCallOptions()),
    );
}

/** Both reference-list activities, sharing the process's cache for `source`. */
export function createReferenceListActivities(
  source: RegistryClientResolver | ReferenceLists,
): ReferenceListActivities {
  const lists = listsOf(source);
  return { vettingProviderOffer: vettingProviderOfferActivity(lists) };
}
