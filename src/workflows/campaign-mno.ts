/**
 * Per-MNO views of a campaign from the registry's mnoMetadata (spec, "Campaign MNO metadata"), and
 * the reasons an MNO would not accept the campaign's content. Pure: used in workflow code.
 */

import type { CampaignContent, MnoView } from '../contracts/campaign.js';
import type { MnoMetadataRecord } from '../contracts/campaign-activity-types.js';

function sampleCount(content: CampaignContent): number {
  return [content.sample1, content.sample2, content.sample3, content.sample4, content.sample5].filter(
    (s) => typeof s === 'string' && s.trim() !== '',
  ).length;
}

/** Why one MNO would not accept this content, judged from its metadata (empty when it would). */
export function mnoReasons(meta: MnoMetadataRecord, content?: CampaignContent): string[] {
  const reasons: string[] = [];
  if (meta.mnoSupport === false) reasons.push('the MNO does not support this use case');
  if (content) {
    const samples = sampleCount(content);
    if (meta.minMsgSamples !== undefined && samples < meta.minMsgSamples)
      reasons.push(`needs at least ${meta.minMsgSamples} sample messages; the campaign has ${samples}`);
    if (meta.reqSubscriberOptin && !content.subscriberOptin) reasons.push('requires subscriberOptin');
    if (meta.reqSubscriberOptout && !content.subscriberOptout) reasons.push('requires subscriberOptout');
    if (meta.reqSubscriberHelp && !content.subscriberHelp) reasons.push('requires subscriberHelp');
    if (meta.noEmbeddedLink && content.embeddedLink) reasons.push('does not allow embedded links');
    if (meta.noEmbeddedPhone && content.embeddedPhone) reasons.push('does not allow embedded phone numbers');
  }
  if (reasons.length === 0 && meta.qualify === false)
    reasons.push('the registry reports the campaign does not qualify');
  return reasons;
}

/**
 * The per-MNO view. With `content`, the reasons judge the campaign's content against the metadata
 * (before creation, from the campaign builder); without, `qualify` is the registry's word.
 */
export function mnoViews(
  metadata: Record<string, MnoMetadataRecord>,
  content?: CampaignContent,
  operationStatus?: Record<string, string>,
  mnoIDs?: number[],
): MnoView[] {
  return Object.entries(metadata)
    .filter(([mnoId]) => !mnoIDs || mnoIDs.length === 0 || mnoIDs.includes(Number(mnoId)))
    .map(([mnoId, meta]) => {
      const reasons = mnoReasons(meta, content);
      const view: MnoView = {
        mnoId,
        reasons,
        qualify: content ? reasons.length === 0 && meta.qualify !== false : meta.qualify,
      };
      if (meta.mno !== undefined) view.mno = meta.mno;
      if (meta.mnoReview !== undefined) view.mnoReview = meta.mnoReview;
      if (meta.mnoSupport !== undefined) view.mnoSupport = meta.mnoSupport;
      if (meta.brandTier !== undefined) view.brandTier = meta.brandTier;
      if (meta.brandDailyCap !== undefined) view.brandDailyCap = meta.brandDailyCap;
      const op = operationStatus?.[mnoId];
      if (op !== undefined) view.operationStatus = op;
      return view;
    })
    .sort((a, b) => a.mnoId.localeCompare(b.mnoId));
}

/** "T-Mobile (10017): requires subscriberOptin; ..." per non-qualifying MNO. */
export function describeMnoRefusals(views: MnoView[]): string[] {
  return views
    .filter((v) => !v.qualify)
    .map((v) => `${v.mno ?? 'MNO'} (${v.mnoId}): ${v.reasons.join('; ') || 'does not qualify'}`);
}
