/**
 * The parked-events workflow: durable storage for registry events that no workflow owns yet.
 *
 * The ingress starts (or signals) one per key with signalWithStart: `parked/{kind}/{registryId}` for
 * events that carry only a registry id nobody has claimed, `parked/{kind}-ref/{reference}` for
 * events whose reference has no running workflow. It holds each delivery once (by deliveryId).
 * When the owner knows the key, it sends `claimParkedEventsSignal({ownerWorkflowId})`; every held
 * delivery is forwarded to the owner with `registryEventSignal`, in arrival order, and the workflow
 * keeps forwarding late arrivals for a grace period (visibility lag at the ingress) before it
 * completes. Unclaimed, it completes after the retention period and returns what it held, so the
 * events stay visible in its history. Deterministic: workflow APIs, signal and id modules only.
 */

import type { SearchAttributeUpdatePair } from '@temporalio/common';
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { messageOf } from '../common/error-message.js';
import {
  type ParkedEventsInput,
  type ParkedEventsResult,
  parkedEventsQuery,
} from '../contracts/parked-events.js';
import { BrandIdKey, BrandReferenceKey, CampaignIdKey, PhaseKey } from '../contracts/search-attributes.js';
import {
  claimParkedEventsSignal,
  type RegistryEventDelivery,
  registryEventSignal,
} from '../contracts/signals.js';
import { recordParked, recordReleased } from './parked-metrics.js';

export const DEFAULT_PARKED_RETENTION_MS = 30 * 24 * 3600_000;
export const DEFAULT_CLAIM_GRACE_MS = 10 * 60_000;
/** The value of TcrPhase on every parked-events workflow: `TcrPhase = "parked"` lists them all. */
export const PARKED_PHASE = 'parked';

export {
  type ParkedEventsInput,
  type ParkedEventsResult,
  parkedEventsQuery,
} from '../contracts/parked-events.js';

/** How many delivery ids are remembered for dedupe across continue-as-new. */
const SEEN_LIMIT = 2_000;

export async function parkedEvents(input: ParkedEventsInput): Promise<ParkedEventsResult> {
  const retentionMs = input.retentionMs ?? DEFAULT_PARKED_RETENTION_MS;
  const claimGraceMs = input.claimGraceMs ?? DEFAULT_CLAIM_GRACE_MS;
  const held: RegistryEventDelivery[] = [...(input.carried?.held ?? [])];
  const seen = new Set<string>(input.carried?.seen ?? held.map((d) => d.deliveryId));
  const expiresAt = input.carried?.expiresAt ?? Date.now() + retentionMs;
  let ownerWorkflowId = input.carried?.ownerWorkflowId;
  let claimedAt = input.carried?.claimedAt;
  let forwarded = input.carried?.forwarded ?? 0;
  let changes = 0;

  setHandler(registryEventSignal, (delivery) => {
    if (seen.has(delivery.deliveryId)) return;
    seen.add(delivery.deliveryId);
    held.push(delivery);
    recordParked(input.kind);
    changes++;
  });
  setHandler(claimParkedEventsSignal, ({ ownerWorkflowId: owner }) => {
    ownerWorkflowId = owner;
    claimedAt = Date.now();
    changes++;
  });
  setHandler(parkedEventsQuery, () => ({
    kind: input.kind,
    keyType: input.keyType,
    key: input.key,
    held: [...held],
    ownerWorkflowId,
    forwarded,
    expiresAt: new Date(expiresAt).toISOString(),
  }));

  if (input.searchAttributes !== false && !input.carried) {
    upsertSearchAttributes(searchAttributesFor(input));
  }

  for (;;) {
    if (ownerWorkflowId !== undefined && held.length > 0) {
      const owner = getExternalWorkflowHandle(ownerWorkflowId);
      while (held.length > 0) {
        const delivery = held[0]!;
        try {
          await owner.signal(registryEventSignal, delivery);
        } catch (error) {
          // The claimant is gone: keep everything and wait for another claim or the retention.
          log.warn('parked events: owner could not be signalled', {
            ownerWorkflowId,
            error: messageOf(error),
          });
          ownerWorkflowId = undefined;
          claimedAt = undefined;
          break;
        }
        held.shift();
        recordReleased(input.kind, 'forwarded', [delivery]);
        forwarded++;
      }
      continue;
    }
    const now = Date.now();
    if (ownerWorkflowId !== undefined && claimedAt !== undefined && now >= claimedAt + claimGraceMs) {
      return { outcome: 'claimed', ownerWorkflowId, forwarded, held: [] };
    }
    if (ownerWorkflowId === undefined && now >= expiresAt) {
      recordReleased(input.kind, 'expired', held);
      return { outcome: 'expired', forwarded, held: [...held] };
    }
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof parkedEvents>({
        ...input,
        carried: {
          held,
          seen: [...seen].slice(-SEEN_LIMIT),
          expiresAt,
          ownerWorkflowId,
          claimedAt,
          forwarded,
        },
      });
    }
    const wakeAt =
      ownerWorkflowId !== undefined && claimedAt !== undefined ? claimedAt + claimGraceMs : expiresAt;
    const seenChanges = changes;
    await condition(() => changes !== seenChanges, Math.max(1, wakeAt - now));
  }
}

function searchAttributesFor(input: ParkedEventsInput): SearchAttributeUpdatePair[] {
  const pairs: SearchAttributeUpdatePair[] = [{ key: PhaseKey, value: PARKED_PHASE }];
  if (input.keyType === 'registryId') {
    pairs.push({ key: input.kind === 'brand' ? BrandIdKey : CampaignIdKey, value: input.key });
  } else if (input.kind === 'brand') {
    pairs.push({ key: BrandReferenceKey, value: input.key });
  }
  return pairs;
}
