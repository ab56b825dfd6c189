import { campaignInternal, findCampaign } from './campaigns.js';
import type { SimContext } from './context.js';
import { badRequest, ErrorCode } from './errors.js';
import { campaignEvent } from './events.js';
import { cnpById, dcaById } from './reference-data.js';
import type { CampaignRecord, SharingRecord } from './state.js';

/** Upstream decision rule: a description containing "DECLINE" (upper case) is declined. */
export const DECLINE_MARKER = 'DECLINE';
export const DECLINE_EXPLANATION =
  'Declined by the upstream partner: the campaign description contains DECLINE (simulator scenario)';

function brandOf(ctx: SimContext, campaign: CampaignRecord) {
  return ctx.store.account(campaign.cspId).brands[campaign.brandId];
}

export function shareCampaign(
  ctx: SimContext,
  cspId: string,
  campaignId: string,
  upstreamCnpId: string,
): SharingRecord {
  const campaign = findCampaign(ctx, cspId, campaignId);
  if (campaign.status !== 'ACTIVE') {
    throw badRequest(ErrorCode.CAMPAIGN_NOT_ACTIVE, `campaign ${campaignId} is ${campaign.status}`, [
      'campaignId',
    ]);
  }
  const cnp = cnpById(upstreamCnpId);
  if (!cnp || upstreamCnpId === cspId) {
    throw badRequest(
      ErrorCode.UNKNOWN_CNP,
      `upstreamCnpId: '${upstreamCnpId}' is not a connectivity partner (see /enum/cnp)`,
      ['upstreamCnpId'],
    );
  }
  const internal = campaignInternal(ctx, campaign);
  const previous = internal.sharing;
  if (previous?.sharingStatus === 'PENDING') {
    throw badRequest(
      ErrorCode.SHARING_PENDING,
      `campaign ${campaignId} has a PENDING share with ${previous.upstreamCnpId}; it cannot be changed or rescinded until decided`,
      ['upstreamCnpId'],
    );
  }
  if (previous?.sharingStatus === 'ACCEPTED') {
    throw badRequest(
      ErrorCode.SHARING_ALREADY_ACCEPTED,
      `campaign ${campaignId} was already accepted by ${previous.upstreamCnpId}`,
      ['upstreamCnpId'],
    );
  }
  if (
    previous?.sharingStatus === 'DECLINED' &&
    previous.upstreamCnpId === upstreamCnpId &&
    !internal.changedSinceDecline
  ) {
    throw badRequest(
      ErrorCode.SHARING_RESUBMIT_UNCHANGED,
      `change the campaign before resubmitting it to ${upstreamCnpId}, or share with a different partner`,
      ['upstreamCnpId'],
    );
  }
  const now = ctx.nowIso();
  const record: SharingRecord = {
    downstreamCnpId: cspId,
    upstreamCnpId,
    sharingStatus: 'PENDING',
    explanation: null,
    sharedDate: now,
    statusDate: now,
    cnpMigration: false,
  };
  internal.sharing = record;
  internal.dcas = [];
  internal.dcaComplete = false;
  campaignEvent(ctx, campaign, brandOf(ctx, campaign), 'CAMPAIGN_SHARE_ADD', {
    cnpId: upstreamCnpId,
    description: `Shared with ${cnp.displayName}: PENDING`,
  });
  ctx.schedule('sharing.decide', ctx.delays.shareDecisionSeconds, { cspId, campaignId, sharedDate: now });
  ctx.store.changed();
  return record;
}

export function getSharing(ctx: SimContext, cspId: string, campaignId: string) {
  const campaign = findCampaign(ctx, cspId, campaignId);
  return { sharedByMe: campaignInternal(ctx, campaign).sharing, sharedWithMe: null };
}

/** The upstream partner's decision; without `accept` the scenario rule decides. */
export function decideShare(
  ctx: SimContext,
  cspId: string,
  campaignId: string,
  decision: { accept?: boolean; explanation?: string } = {},
): SharingRecord {
  const campaign = findCampaign(ctx, cspId, campaignId);
  const internal = campaignInternal(ctx, campaign);
  const sharing = internal.sharing;
  if (sharing?.sharingStatus !== 'PENDING') {
    throw badRequest(ErrorCode.VALIDATION, `campaign ${campaignId} has no PENDING share`, ['campaignId']);
  }
  const accept = decision.accept ?? !campaign.description.includes(DECLINE_MARKER);
  const cnp = cnpById(sharing.upstreamCnpId)!;
  sharing.statusDate = ctx.nowIso();
  const brand = brandOf(ctx, campaign);
  if (!accept) {
    sharing.sharingStatus = 'DECLINED';
    sharing.explanation = decision.explanation ?? DECLINE_EXPLANATION;
    internal.changedSinceDecline = false;
    campaignEvent(ctx, campaign, brand, 'CAMPAIGN_SHARE_DELETE', {
      cnpId: cnp.cnpId,
      description: sharing.explanation,
    });
    ctx.store.changed();
    return sharing;
  }
  sharing.sharingStatus = 'ACCEPTED';
  sharing.explanation = null;
  campaignEvent(ctx, campaign, brand, 'CAMPAIGN_SHARE_ACCEPT', {
    cnpId: cnp.cnpId,
    description: `Accepted by ${cnp.displayName}`,
  });
  if (cnp.dca) {
    internal.dcas = [{ dcaId: cnp.cnpId, accepted: true }];
    completeIfAllAccepted(ctx, campaign);
  } else {
    internal.dcas = [{ dcaId: cnp.forwardsToDcaId!, accepted: false }];
    ctx.schedule('dca.decide', ctx.delays.dcaDecisionSeconds, {
      cspId,
      campaignId,
      sharedDate: sharing.sharedDate,
    });
  }
  ctx.store.changed();
  return sharing;
}

/** A DCA (or every pending DCA) accepts the campaign. */
export function dcaAccept(
  ctx: SimContext,
  cspId: string,
  campaignId: string,
  dcaId?: string,
): CampaignRecord {
  const campaign = findCampaign(ctx, cspId, campaignId);
  const internal = campaignInternal(ctx, campaign);
  const pending = internal.dcas.filter((d) => !d.accepted && (!dcaId || d.dcaId === dcaId));
  if (pending.length === 0) {
    throw badRequest(
      ErrorCode.VALIDATION,
      `campaign ${campaignId} awaits no DCA acceptance${dcaId ? ` from ${dcaId}` : ''}`,
      ['campaignId'],
    );
  }
  for (const dca of pending) dca.accepted = true;
  completeIfAllAccepted(ctx, campaign);
  ctx.store.changed();
  return campaign;
}

function completeIfAllAccepted(ctx: SimContext, campaign: CampaignRecord): void {
  const internal = campaignInternal(ctx, campaign);
  if (internal.dcaComplete || internal.dcas.length === 0 || internal.dcas.some((d) => !d.accepted)) return;
  internal.dcaComplete = true;
  for (const [mnoId, status] of Object.entries(campaign.mnoOperationStatus)) {
    if (status === 'PENDING') campaign.mnoOperationStatus[mnoId] = 'REGISTERED';
  }
  const last = internal.dcas[internal.dcas.length - 1]!;
  campaignEvent(ctx, campaign, brandOf(ctx, campaign), 'CAMPAIGN_DCA_COMPLETE', {
    dcaId: last.dcaId,
    dcaName: dcaById(last.dcaId)?.displayName,
    description: `Accepted by all DCAs: ${internal.dcas.map((d) => d.dcaId).join(', ')}`,
  });
}

export function registerSharingJobs(ctx: SimContext): void {
  ctx.handlers.set('sharing.decide', (c, d) => {
    const campaign = c.store.account(d.cspId!).campaigns[d.campaignId!];
    const sharing = campaign && campaignInternal(c, campaign).sharing;
    if (sharing?.sharingStatus === 'PENDING' && sharing.sharedDate === d.sharedDate)
      decideShare(c, d.cspId!, d.campaignId!);
  });
  ctx.handlers.set('dca.decide', (c, d) => {
    const campaign = c.store.account(d.cspId!).campaigns[d.campaignId!];
    if (!campaign) return;
    const internal = campaignInternal(c, campaign);
    if (internal.sharing?.sharedDate === d.sharedDate && internal.dcas.some((x) => !x.accepted))
      dcaAccept(c, d.cspId!, d.campaignId!);
  });
}
