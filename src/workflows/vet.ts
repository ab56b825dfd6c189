/**
 * vetWorkflow: one external vet of one brand (a child of the brand workflow, id
 * `brand/{reference}/vet/{evpId}/{seq}`). Orders (`POST /brand/{id}/externalVetting` → PENDING) or
 * imports (`PUT`) the vet, then waits for the result for the spec's 48 hours plus a grace period:
 * woken by webhook signals the brand workflow forwards (vet events carry evpId / vettingId) and
 * confirmed by polling `GET /brand/{id}/externalVetting` on a backoff schedule. Every change is
 * reported to the brand workflow by signal (by workflow id, so it reaches the brand's current run
 * after a continue-as-new); the result is also the workflow's return value.
 */
import { defineQuery, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import type { VetRecord } from '../activities/types.js';
import { type VetProgress, vetProgressSignal } from './brand-definitions.js';
import type { VetState } from './brand-types.js';
import { DeliveryDedupe } from './delivery-dedupe.js';
import { registryActivities, registryRefusal } from './registry-activities.js';
import { registryEventSignal } from './signals.js';
import { type BackoffSchedule, DEFAULT_PENDING_POLL, HOUR_MS, reconcileUntil, Wakeup } from './wait.js';

export type VetRequest =
  | { mode: 'order'; evpId: string; vettingClass: string }
  | { mode: 'import'; evpId: string; vettingId: string; vettingToken?: string };

export interface VetWorkflowInput {
  brandWorkflowId: string;
  account: string;
  brandId: string;
  seq: number;
  request: VetRequest;
  /** Default 48 h (spec, "Limits"). */
  resultWindowMs?: number;
  /** Default 2 h. */
  graceMs?: number;
  /** Default 1 min doubling to 1 h. */
  poll?: BackoffSchedule;
}

export type VetOutcome = VetProgress;

export const vetStatusQuery = defineQuery<VetProgress>('vetStatus');

export const DEFAULT_VET_RESULT_WINDOW_MS = 48 * HOUR_MS;
export const DEFAULT_VET_GRACE_MS = 2 * HOUR_MS;

const finalStates: readonly VetState[] = ['active', 'failed', 'expired', 'timed-out', 'rejected'];

/** Registry vettingStatus → our vet state. */
export function vetStateOf(vettingStatus: string): VetState {
  switch (vettingStatus) {
    case 'ACTIVE':
      return 'active';
    case 'FAILED':
      return 'failed';
    case 'EXPIRED':
      return 'expired';
    case 'UNSCORE':
      return 'under-review';
    default:
      return 'pending';
  }
}

/** The registry record of this vet among the brand's vets: by vettingId, else the newest of the provider and class. */
export function matchVet(
  records: VetRecord[],
  evpId: string,
  vettingId?: string,
  vettingClass?: string,
): VetRecord | undefined {
  if (vettingId) return records.find((r) => r.vettingId === vettingId);
  const candidates = records.filter(
    (r) =>
      r.evpId === evpId && (vettingClass === undefined || !r.vettingClass || r.vettingClass === vettingClass),
  );
  return candidates.sort((a, b) => (b.createDate ?? '').localeCompare(a.createDate ?? ''))[0];
}

export async function vetWorkflow(input: VetWorkflowInput): Promise<VetOutcome> {
  const { reads, writes } = registryActivities(input.account);
  const wakeup = new Wakeup();
  const dedupe = new DeliveryDedupe();
  const deadline =
    Date.now() +
    (input.resultWindowMs ?? DEFAULT_VET_RESULT_WINDOW_MS) +
    (input.graceMs ?? DEFAULT_VET_GRACE_MS);
  let progress: VetProgress = {
    seq: input.seq,
    state: 'pending',
    cause: 'start',
    deadline: new Date(deadline).toISOString(),
    ...(input.request.mode === 'order' ? { vettingClass: input.request.vettingClass } : {}),
    ...(input.request.mode === 'import' ? { vettingId: input.request.vettingId } : {}),
  };

  setHandler(registryEventSignal, (delivery) => {
    if (dedupe.firstSeen(delivery.deliveryId)) wakeup.bump('webhook');
  });
  setHandler(vetStatusQuery, () => progress);

  const brand = getExternalWorkflowHandle(input.brandWorkflowId);
  const report = async (next: VetProgress): Promise<void> => {
    progress = next;
    try {
      await brand.signal(vetProgressSignal, next);
    } catch {
      // The brand workflow is gone (cancelled or deleted): the result stays in this workflow.
    }
  };
  const fromRecord = (record: VetRecord, cause: VetProgress['cause']): VetProgress => ({
    ...progress,
    cause,
    state: vetStateOf(record.vettingStatus),
    ...(record.vettingId ? { vettingId: record.vettingId } : {}),
    ...(record.vettingClass ? { vettingClass: record.vettingClass } : {}),
    ...(typeof record.vettingScore === 'number' ? { score: record.vettingScore } : {}),
    ...(record.reasons && record.reasons.length > 0 ? { reasons: record.reasons.map(String) } : {}),
    ...(record.vettedDate ? { vettedDate: record.vettedDate } : {}),
  });

  let record: VetRecord;
  try {
    const target = { account: input.account, brandId: input.brandId, evpId: input.request.evpId };
    record =
      input.request.mode === 'order'
        ? await writes.orderExternalVet({ ...target, vettingClass: input.request.vettingClass })
        : await writes.importExternalVet({
            ...target,
            vettingId: input.request.vettingId,
            ...(input.request.vettingToken ? { vettingToken: input.request.vettingToken } : {}),
          });
  } catch (error) {
    const refusal = registryRefusal(error);
    if (!refusal) throw error;
    const outcome: VetProgress = {
      ...progress,
      state: 'rejected',
      cause: 'start',
      reasons: refusal.errors.length > 0 ? refusal.errors.map((e) => e.description) : [refusal.message],
      detail: refusal.message,
    };
    await report(outcome);
    return outcome;
  }

  let current = fromRecord(record, 'start');
  await report(current);
  if (finalStates.includes(current.state)) return current;

  const result = await reconcileUntil<VetProgress>({
    wakeup,
    schedule: input.poll ?? DEFAULT_PENDING_POLL,
    deadline,
    check: async (cause) => {
      if (cause === 'start') return undefined; // just read by the order itself
      const records = await reads.listExternalVets({ account: input.account, brandId: input.brandId });
      const match = matchVet(records, input.request.evpId, current.vettingId, current.vettingClass);
      if (!match) return undefined;
      const next = fromRecord(match, cause);
      if (next.state !== current.state) {
        current = next;
        await report(current);
      }
      return finalStates.includes(current.state) ? current : undefined;
    },
  });
  if (result.outcome === 'done') return result.value;
  const timedOut: VetProgress = {
    ...current,
    state: 'timed-out',
    cause: 'timer',
    detail: `no result by ${new Date(deadline).toISOString()} (48 h window plus grace)`,
  };
  await report(timedOut);
  return timedOut;
}
