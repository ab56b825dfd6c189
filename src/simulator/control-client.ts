import type { SeedInput, SeedResult } from './estate.js';
import type { FaultInput } from './faults.js';
import type {
  BrandRecord,
  CampaignRecord,
  DeliveryLogEntry,
  LedgerEntry,
  QueuedEvent,
  SharingRecord,
  VetRecord,
} from './state.js';

export type { SeedInput, SeedResult } from './estate.js';
export type { FaultInput } from './faults.js';
export type {
  BrandRecord,
  CampaignRecord,
  DeliveryLogEntry,
  LedgerEntry,
  SharingRecord,
  VetRecord,
} from './state.js';

export class SimulatorControlError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`simulator control API answered ${status}: ${JSON.stringify(body)}`);
  }
}

export type VetDecision =
  | { outcome: 'UNSCORE' }
  | { outcome: 'ACTIVE'; score?: number }
  | { outcome: 'FAILED'; reasons?: string[] };

/** Typed client for the simulator's control API (`/control/...`, see docs/simulator.md). */
export class SimulatorControl {
  private readonly base: string;

  constructor(
    simulatorUrl: string,
    /** The simulator's control token, when it was started with one. */
    private readonly options: { token?: string } = {},
  ) {
    this.base = simulatorUrl.replace(/\/+$/, '').replace(/\/v2$/, '');
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.base}/control${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) throw new SimulatorControlError(response.status, parsed);
    return parsed as T;
  }

  health(): Promise<{ ok: true; now: string }> {
    return this.call('GET', '/health');
  }

  async now(): Promise<Date> {
    return new Date((await this.call<{ now: string }>('GET', '/clock')).now);
  }

  async advanceClock(seconds: number): Promise<Date> {
    return new Date((await this.call<{ now: string }>('POST', '/clock/advance', { seconds })).now);
  }

  async setClock(at: Date | string): Promise<Date> {
    const now = typeof at === 'string' ? at : at.toISOString();
    return new Date((await this.call<{ now: string }>('POST', '/clock/set', { now })).now);
  }

  /** Completes business-contact 2FA (or a sole proprietor's mobile OTP). */
  verifyContact(brandId: string): Promise<BrandRecord> {
    return this.call('POST', `/brands/${encodeURIComponent(brandId)}/verify-contact`, {});
  }

  /** Decides the brand's pending appeal; `approve` omitted applies the scenario rule. */
  decideAppeal(brandId: string, approve?: boolean): Promise<BrandRecord> {
    return this.call('POST', `/brands/${encodeURIComponent(brandId)}/appeal-decision`, { approve });
  }

  /** The provider's result for an ordered vet; decision omitted applies the scenario rule. */
  decideVet(vettingId: string, decision?: VetDecision, brandId?: string): Promise<VetRecord> {
    return this.call('POST', `/vets/${encodeURIComponent(vettingId)}/decision`, { ...decision, brandId });
  }

  expireVet(vettingId: string, brandId?: string): Promise<VetRecord> {
    return this.call('POST', `/vets/${encodeURIComponent(vettingId)}/expire`, { brandId });
  }

  /** The upstream partner's decision on a PENDING share; `accept` omitted applies the scenario rule. */
  decideShare(
    campaignId: string,
    decision: { accept?: boolean; explanation?: string } = {},
  ): Promise<SharingRecord> {
    return this.call('POST', `/campaigns/${encodeURIComponent(campaignId)}/share-decision`, decision);
  }

  acceptShare(campaignId: string): Promise<SharingRecord> {
    return this.decideShare(campaignId, { accept: true });
  }

  declineShare(campaignId: string, explanation: string): Promise<SharingRecord> {
    return this.decideShare(campaignId, { accept: false, explanation });
  }

  dcaComplete(campaignId: string, dcaId?: string): Promise<CampaignRecord> {
    return this.call('POST', `/campaigns/${encodeURIComponent(campaignId)}/dca-complete`, { dcaId });
  }

  suspendCampaign(campaignId: string, mnoId: number): Promise<CampaignRecord> {
    return this.call('POST', `/campaigns/${encodeURIComponent(campaignId)}/suspend`, { mnoId });
  }

  expireCampaign(campaignId: string): Promise<CampaignRecord> {
    return this.call('POST', `/campaigns/${encodeURIComponent(campaignId)}/expire`, {});
  }

  nudgeCampaign(campaignId: string, nudgeIntent: string, description?: string): Promise<{ ok: true }> {
    return this.call('POST', `/campaigns/${encodeURIComponent(campaignId)}/nudge`, {
      nudgeIntent,
      description,
    });
  }

  ledger(cspId?: string): Promise<LedgerEntry[]> {
    return this.call('GET', `/ledger${cspId ? `?cspId=${encodeURIComponent(cspId)}` : ''}`);
  }

  deliveries(filter: { cspId?: string; eventType?: string } = {}): Promise<DeliveryLogEntry[]> {
    const query = new URLSearchParams(
      Object.entries(filter).filter(([, v]) => v !== undefined) as [string, string][],
    );
    return this.call('GET', `/webhooks/deliveries${query.size ? `?${query}` : ''}`);
  }

  webhookQueue(cspId?: string): Promise<(QueuedEvent & { cspId: string })[]> {
    return this.call('GET', `/webhooks/queue${cspId ? `?cspId=${encodeURIComponent(cspId)}` : ''}`);
  }

  /**
   * Sets the signing secret (and digest encoding, default base64) of one subscription, or, without
   * `eventCategory`, of every current and future subscription of the account (all accounts without `cspId`).
   */
  setWebhookSecret(input: {
    secret: string;
    cspId?: string;
    eventCategory?: string;
    digestEncoding?: 'base64' | 'hex';
  }): Promise<{ ok: true }> {
    return this.call('PUT', '/webhooks/secret', input);
  }

  addFault(fault: FaultInput): Promise<{ id: string; remaining: number }> {
    return this.call('POST', '/faults', fault);
  }

  faults(): Promise<{ id: string; kind: string; remaining: number }[]> {
    return this.call('GET', '/faults');
  }

  clearFaults(): Promise<{ ok: true }> {
    return this.call('DELETE', '/faults');
  }

  /**
   * Seeds an existing estate: `brands` brands and `campaigns` (or `campaignsPerBrand` each) campaigns in
   * every modelled status, fake data from `seed`, no webhooks, no charges (see docs/simulator.md).
   */
  seed(input: SeedInput): Promise<SeedResult> {
    return this.call('POST', '/seed', input);
  }

  /** Forgets every entity, queue, ledger entry and fault, and puts the clock back to the source clock. */
  reset(): Promise<{ ok: true }> {
    return this.call('POST', '/reset', {});
  }

  /** Polls the delivery log until `predicate` matches an entry (handy in tests). */
  async waitForDelivery(
    predicate: (entry: DeliveryLogEntry) => boolean,
    options: { timeoutMs?: number; cspId?: string } = {},
  ): Promise<DeliveryLogEntry> {
    const deadline = Date.now() + (options.timeoutMs ?? 5000);
    for (;;) {
      const found = (await this.deliveries({ cspId: options.cspId })).find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('timed out waiting for a matching webhook delivery');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
