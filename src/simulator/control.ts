import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { z } from 'zod';
import { decideAppeal, verifyContact } from './brands.js';
import { expireCampaign, nudgeCampaign, suspendCampaign } from './campaigns.js';
import type { SimContext } from './context.js';
import { ApiError, badRequest, ErrorCode, notFound } from './errors.js';
import { SeedSchema, seedEstate } from './estate.js';
import { isEventCategory } from './events.js';
import { FaultSchema } from './faults.js';
import { type Route, route } from './http.js';
import { parse } from './records.js';
import { dcaAccept, decideShare } from './sharing.js';
import type { AccountState, BrandRecord, CampaignRecord } from './state.js';
import { decideVet, expireVet, findVet } from './vetting.js';

/**
 * Control API under /control: drives scenarios the real registry decides on its own, moves the clock,
 * reads the ledger and the webhook delivery log, and injects faults. Guarded by
 * {@link guardControlRequest}: a web page the developer visits must not be able to drive it.
 */

/** What a control request must satisfy (see {@link guardControlRequest}). */
export interface ControlGuard {
  /** When set, every control request must carry `Authorization: Bearer <token>` (and any Host is accepted). */
  token?: string;
  /** The address the simulator listens on; without a token, accepted as a Host besides the loopback names. */
  listenHost: string;
}

const refused = (status: number, description: string) =>
  new ApiError(status, [{ code: ErrorCode.UNAUTHORIZED, description, fields: [] }]);

function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

/** The host part of a Host header ("127.0.0.1:8480", "[::1]:8480", "localhost"). */
function hostOf(header: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return bracketed[1]!;
  return header.replace(/:\d+$/, '');
}

/**
 * Checks a control request before anything is read from it:
 * - with a token configured, `Authorization: Bearer <token>` (then any Host is accepted: a page that
 *   does not know the token cannot use it, so a simulator in a container can be driven by name);
 * - without a token, `Host` must name loopback (or the listen address): a DNS-rebinding page sends its
 *   own name;
 * - an `Origin` header (browsers send one with every non-GET request) must be a loopback origin, and
 *   `Sec-Fetch-Site`, when sent, must say the request is not from another site;
 * - a body must be declared `application/json` (a cross-site form can only send other types).
 * Throws an ApiError (401, 403 or 415) that names what was wrong.
 */
export function guardControlRequest(req: IncomingMessage, guard: ControlGuard): void {
  if (guard.token !== undefined) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const a = Buffer.from(presented);
    const b = Buffer.from(guard.token);
    if (a.length !== b.length || !timingSafeEqual(a, b))
      throw refused(401, 'control API: missing or wrong bearer token');
  } else {
    const host = hostOf(req.headers.host ?? '');
    const listen = guard.listenHost.replace(/^\[|\]$/g, '');
    const wildcard = listen === '0.0.0.0' || listen === '::';
    if (!isLoopbackName(host) && (wildcard || host !== listen))
      throw refused(403, `control API: Host "${host}" is not a loopback address`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const originHost = URL.canParse(origin) ? new URL(origin).hostname : '';
    if (!isLoopbackName(originHost)) throw refused(403, `control API: Origin "${origin}" is not loopback`);
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    throw refused(403, `control API: refused a ${site} browser request`);
  const hasBody =
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') ||
    req.headers['transfer-encoding'] !== undefined;
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if ((hasBody || mediaType !== '') && mediaType !== 'application/json')
    throw new ApiError(415, [
      {
        code: ErrorCode.VALIDATION,
        description: 'control API: the body must be Content-Type application/json',
        fields: ['content-type'],
      },
    ]);
}

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
    route('POST', '/control/seed', (req) => {
      const input = parse(SeedSchema, req.body);
      const cspId = input.cspId ?? ctx.accounts[0]?.cspId;
      if (!cspId || !ctx.accounts.some((a) => a.cspId === cspId))
        throw notFound('account', cspId ?? '', 'cspId');
      return ok(seedEstate(ctx, cspId, input));
    }),
    route('GET', '/control/faults', () => ok(ctx.faults.all())),
    route('POST', '/control/faults', (req) => {
      const input = parse(FaultSchema, req.body);
      try {
        return ok(ctx.faults.add(input));
      } catch (error) {
        if (error instanceof RangeError)
          throw badRequest(ErrorCode.VALIDATION, `faults: ${error.message}`, ['faults']);
        const reason = error instanceof SyntaxError ? error.message : 'not a valid regular expression';
        throw badRequest(ErrorCode.VALIDATION, `pathPattern: ${reason}`, ['pathPattern']);
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
