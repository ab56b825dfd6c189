import { z } from 'zod';
import { decideAppeal, parse, verifyContact } from './brands.js';
import { expireCampaign, nudgeCampaign, suspendCampaign } from './campaigns.js';
import type { SimContext } from './context.js';
import { badRequest, ErrorCode, notFound } from './errors.js';
import { isEventCategory } from './events.js';
import { FaultSchema } from './faults.js';
import { type Route, route } from './http.js';
import { dcaAccept, decideShare } from './sharing.js';
import type { AccountState, BrandRecord, CampaignRecord } from './state.js';
import { decideVet, expireVet, findVet } from './vetting.js';

/**
 * Control API (no auth, loopback only) under /control: drives scenarios the real registry decides on its
 * own, moves the clock, reads the ledger and the webhook delivery log, and injects faults.
 */
export interface ControlHooks {
  reset(): void;
}

const ok = (body: unknown) => ({ status: 200, body });

function locate<T extends BrandRecord | CampaignRecord>(
  ctx: SimContext,
  pick: (a: AccountState) => Record<string, T>,
  id: string,
  what: string,
): { cspId: string; record: T } {
  for (const [cspId, account] of Object.entries(ctx.store.state.accounts)) {
    const record = pick(account)[id];
    if (record) return { cspId, record };
  }
  throw notFound(what, id, `${what}Id`);
}

const brandOf = (ctx: SimContext, id: string) => locate(ctx, (a) => a.brands, id, 'brand');
const campaignOf = (ctx: SimContext, id: string) => locate(ctx, (a) => a.campaigns, id, 'campaign');

const AdvanceSchema = z.object({
  seconds: z.number().nonnegative().optional(),
  ms: z.number().nonnegative().optional(),
});
const SetClockSchema = z.object({ now: z.iso.datetime({ offset: true }) });
const AppealDecisionSchema = z.object({ approve: z.boolean().optional() });
const VetDecisionSchema = z.object({
  outcome: z.enum(['UNSCORE', 'ACTIVE', 'FAILED']).optional(),
  score: z.number().int().min(0).max(100).optional(),
  reasons: z.array(z.string()).optional(),
  brandId: z.string().optional(),
});
const ShareDecisionSchema = z.object({
  accept: z.boolean().optional(),
  explanation: z.string().min(1).optional(),
});
const SuspendSchema = z.object({ mnoId: z.number().int() });
const NudgeSchema = z.object({ nudgeIntent: z.string().min(1), description: z.string().optional() });
const SecretSchema = z.object({
  cspId: z.string().optional(),
  eventCategory: z.string().optional(),
  secret: z.string().min(1),
  digestEncoding: z.enum(['base64', 'hex']).default('base64'),
});

function accountsOf(ctx: SimContext, cspId: string | null): [string, AccountState][] {
  const entries = Object.entries(ctx.store.state.accounts);
  return cspId ? entries.filter(([id]) => id === cspId) : entries;
}

export function controlRoutes(ctx: SimContext, hooks: ControlHooks): Route<null>[] {
  return [
    route('GET', '/control/health', () => ok({ ok: true, now: ctx.nowIso() })),
    route('GET', '/control/accounts', () => ok(ctx.accounts.map((a) => ({ cspId: a.cspId })))),
    route('GET', '/control/clock', () => ok({ now: ctx.nowIso(), timeScale: ctx.clock.timeScale })),
    route('POST', '/control/clock/advance', (req) => {
      const input = parse(AdvanceSchema, req.body);
      ctx.clock.advance((input.seconds ?? 0) * 1000 + (input.ms ?? 0));
      ctx.store.changed();
      return ok({ now: ctx.nowIso() });
    }),
    route('POST', '/control/clock/set', (req) => {
      const input = parse(SetClockSchema, req.body);
      ctx.clock.set(new Date(input.now));
      ctx.store.changed();
      return ok({ now: ctx.nowIso() });
    }),
    route('POST', '/control/brands/:brandId/verify-contact', (req) => {
      const { cspId } = brandOf(ctx, req.params[0]!);
      return ok(verifyContact(ctx, cspId, req.params[0]!));
    }),
    route('POST', '/control/brands/:brandId/appeal-decision', (req) => {
      const input = parse(AppealDecisionSchema, req.body);
      const { cspId } = brandOf(ctx, req.params[0]!);
      return ok(decideAppeal(ctx, cspId, req.params[0]!, input.approve));
    }),
    route('POST', '/control/vets/:vettingId/decision', (req) => {
      const input = parse(VetDecisionSchema, req.body);
      const { cspId, vet } = findVet(ctx, req.params[0]!, input.brandId);
      const decision =
        input.outcome === undefined
          ? undefined
          : input.outcome === 'ACTIVE'
            ? { outcome: 'ACTIVE' as const, score: input.score }
            : input.outcome === 'FAILED'
              ? { outcome: 'FAILED' as const, reasons: input.reasons }
              : { outcome: 'UNSCORE' as const };
      return ok(decideVet(ctx, cspId, vet, decision));
    }),
    route('POST', '/control/vets/:vettingId/expire', (req) => {
      const input = parse(z.object({ brandId: z.string().optional() }), req.body);
      const { cspId, vet } = findVet(ctx, req.params[0]!, input.brandId);
      if (vet.vettingStatus !== 'ACTIVE')
        throw badRequest(ErrorCode.VALIDATION, `vet ${vet.vettingId} is ${vet.vettingStatus}, not ACTIVE`, [
          'vettingId',
        ]);
      expireVet(ctx, cspId, vet, 'The vet date passed');
      return ok(vet);
    }),
    route('POST', '/control/campaigns/:campaignId/share-decision', (req) => {
      const input = parse(ShareDecisionSchema, req.body);
      const { cspId } = campaignOf(ctx, req.params[0]!);
      return ok(decideShare(ctx, cspId, req.params[0]!, input));
    }),
    route('POST', '/control/campaigns/:campaignId/dca-complete', (req) => {
      const input = parse(z.object({ dcaId: z.string().optional() }), req.body);
      const { cspId } = campaignOf(ctx, req.params[0]!);
      return ok(dcaAccept(ctx, cspId, req.params[0]!, input.dcaId));
    }),
    route('POST', '/control/campaigns/:campaignId/suspend', (req) => {
      const input = parse(SuspendSchema, req.body);
      return ok(suspendCampaign(ctx, campaignOf(ctx, req.params[0]!).record, input.mnoId));
    }),
    route('POST', '/control/campaigns/:campaignId/expire', (req) => {
      const { record } = campaignOf(ctx, req.params[0]!);
      if (record.status !== 'ACTIVE')
        throw badRequest(ErrorCode.CAMPAIGN_NOT_ACTIVE, `campaign ${record.campaignId} is ${record.status}`, [
          'campaignId',
        ]);
      expireCampaign(ctx, record, 'Expired through the control API');
      return ok(record);
    }),
    route('POST', '/control/campaigns/:campaignId/nudge', (req) => {
      const input = parse(NudgeSchema, req.body);
      nudgeCampaign(ctx, campaignOf(ctx, req.params[0]!).record, input.nudgeIntent, input.description);
      return ok({ ok: true });
    }),
    route('GET', '/control/ledger', (req) =>
      ok(accountsOf(ctx, req.query.get('cspId')).flatMap(([, a]) => a.ledger)),
    ),
    route('GET', '/control/webhooks/deliveries', (req) => {
      const eventType = req.query.get('eventType');
      return ok(
        accountsOf(ctx, req.query.get('cspId'))
          .flatMap(([, a]) => a.deliveries)
          .filter((d) => !eventType || d.eventType === eventType),
      );
    }),
    route('GET', '/control/webhooks/queue', (req) =>
      ok(
        accountsOf(ctx, req.query.get('cspId')).flatMap(([cspId, a]) =>
          a.queue.map((q) => ({ cspId, ...q })),
        ),
      ),
    ),
    route('PUT', '/control/webhooks/secret', (req) => {
      const input = parse(SecretSchema, req.body);
      const cspIds = input.cspId ? [input.cspId] : ctx.accounts.map((a) => a.cspId);
      for (const cspId of cspIds) {
        if (!ctx.accounts.some((a) => a.cspId === cspId)) throw notFound('account', cspId, 'cspId');
        const account = ctx.store.account(cspId);
        if (input.eventCategory) {
          if (!isEventCategory(input.eventCategory))
            throw badRequest(ErrorCode.VALIDATION, `eventCategory: unknown '${input.eventCategory}'`, [
              'eventCategory',
            ]);
          const subscription = account.subscriptions[input.eventCategory];
          if (!subscription) throw notFound('webhook subscription', input.eventCategory, 'eventCategory');
          subscription.secret = input.secret;
          subscription.digestEncoding = input.digestEncoding;
        } else {
          account.webhookDefaults = { secret: input.secret, digestEncoding: input.digestEncoding };
          for (const subscription of Object.values(account.subscriptions)) {
            subscription.secret = input.secret;
            subscription.digestEncoding = input.digestEncoding;
          }
        }
      }
      ctx.store.changed();
      return ok({ ok: true });
    }),
    route('GET', '/control/faults', () => ok(ctx.faults.all())),
    route('POST', '/control/faults', (req) => {
      const input = parse(FaultSchema, req.body);
      try {
        return ok(ctx.faults.add(input));
      } catch {
        throw badRequest(ErrorCode.VALIDATION, 'pathPattern: not a valid regular expression', [
          'pathPattern',
        ]);
      }
    }),
    route('DELETE', '/control/faults', () => {
      ctx.faults.clear();
      return ok({ ok: true });
    }),
    route('POST', '/control/reset', () => {
      hooks.reset();
      return ok({ ok: true, now: ctx.nowIso() });
    }),
  ];
}
