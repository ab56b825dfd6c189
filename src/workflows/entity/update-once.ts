/**
 * Operator updates, once each (issue 34): the update id (the caller's idempotency key, or the id the
 * client made for one call and reused on its retries) is remembered with the outcome its first caller
 * got, in a bounded list in the workflow's state, so carried across continue-as-new. The same id
 * asked again, in this run or a later one, is answered with that outcome whatever the phase now
 * (validators let it through: `answeredBefore`), and nothing runs again.
 *
 * A one-shot or billed operation asked again under another id while an identical one is queued or in
 * flight (a double click, an order system retrying with a new key) is answered with the first one's
 * outcome, never queued twice (`sameAs`: the identity two requests share). That is plain memory of
 * this run: the loop continues as new only with an empty queue and no handler waiting.
 *
 * Behind a patch: histories recorded before it ran every update it accepted.
 */
import { condition, currentUpdateInfo, patched } from '@temporalio/workflow';
import type { OperationOutcome } from '../../contracts/operations.js';

/** One remembered update: its id and, once it ran, the outcome its caller got. */
export interface UpdateRecord<P extends string = string> {
  key: string;
  outcome?: OperationOutcome<P>;
}

/** How many operator updates' outcomes an entity remembers (oldest first out). */
export const UPDATE_REQUESTS_KEPT = 100;

/** A value's JSON with object keys sorted: two requests are identical when these are equal. */
export function requestIdentity(kind: string, request: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v === null || typeof v !== 'object') return v;
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return Object.fromEntries(
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, canonical(x)]),
    );
  };
  return `${kind}:${JSON.stringify(canonical(request) ?? null)}`;
}

export interface UpdateOnce<O extends OperationOutcome> {
  /**
   * Runs `submit` once per update id (and, given `sameAs`, once per identical request in progress);
   * without the patch (a recorded history from before it) or an update id, just runs it.
   */
  run(submit: () => Promise<O>, sameAs?: string): Promise<O>;
  /** In a validator: this update id was answered before (its outcome is given again). */
  answeredBefore(): boolean;
  /** In a validator: an identical request (`sameAs`) is queued or in flight in this run. */
  inProgress(sameAs: string): boolean;
}

/**
 * `records(create)`: the state's list (created when `create`, else possibly undefined); `patchId`:
 * the patch the mechanism is behind.
 */
export function updateOnce<O extends OperationOutcome>(
  records: (create: boolean) => UpdateRecord[] | undefined,
  patchId: string,
  kept: number,
): UpdateOnce<O> {
  /** Records this run submitted (a record carried without its outcome is not waited on). */
  const submittedThisRun = new Set<UpdateRecord>();
  /** Identical requests in progress in this run: the record whose outcome answers them all. */
  const inFlight = new Map<string, UpdateRecord>();

  const answer = async (record: UpdateRecord): Promise<O> => {
    await condition(() => record.outcome !== undefined);
    return record.outcome as O;
  };

  return {
    async run(submit, sameAs) {
      const key = currentUpdateInfo()?.id;
      if (key === undefined || !patched(patchId)) return submit();
      const list = records(true)!;
      const seen = list.find((r) => r.key === key && (r.outcome !== undefined || submittedThisRun.has(r)));
      if (seen) return answer(seen);
      const record: UpdateRecord = { key };
      const first = sameAs === undefined ? undefined : inFlight.get(sameAs);
      list.push(record);
      while (list.length > kept) list.shift();
      submittedThisRun.add(record);
      if (first) {
        record.outcome = await answer(first);
        return record.outcome as O;
      }
      if (sameAs !== undefined) inFlight.set(sameAs, record);
      try {
        record.outcome = await submit();
      } finally {
        if (sameAs !== undefined && inFlight.get(sameAs) === record) inFlight.delete(sameAs);
      }
      return record.outcome as O;
    },
    answeredBefore() {
      const key = currentUpdateInfo()?.id;
      return key !== undefined && (records(false) ?? []).some((r) => r.key === key && r.outcome);
    },
    inProgress(sameAs) {
      return inFlight.has(sameAs);
    },
  };
}
