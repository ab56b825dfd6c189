/**
 * The workflow binding of a payload (envelopes 4 and 5, issue 35 item 1): the namespace and workflow
 * id of the serialization context the SDK passes to `PayloadCodec.encode`, put in the AES-GCM
 * associated data and carried in the metadata, so that a ciphertext copied from one workflow's
 * history into another's input or signal is refused where it lands, while a decoder without a context
 * (the codec server, `tcr` reading a history) can still open it: the associated data keeps the
 * metadata honest.
 *
 * What context arrives (Temporal TS SDK 1.24, experimental):
 * - client start, signal-with-start, signal, query, update, result, describe/list memo: the target
 *   workflow's; the ingress's signal-with-start too;
 * - the worker: the workflow's own for its input, signals, queries, updates, results, failures,
 *   continue-as-new (same id) and memo; the child's for a child's input and result; the target's for
 *   a signal to an external workflow; an activity's (`type: 'activity'`, the scheduling workflow's id)
 *   for its input, result, heartbeats and failure — none when a resolution's command was encoded by
 *   another process (then nothing is checked);
 * - Nexus: none for the handler's input, result and failure (unbound); the caller decodes an
 *   operation's result with its own context, so the outcome workflows whose results Nexus delivers
 *   to a caller (`nexus-order/...`, src/contracts/nexus-service.ts) are written unbound;
 * - a schedule's action: the action's workflow id, but its runs are `${workflowId}-${RFC 3339 time}`:
 *   an action encoded inside `forScheduleAction` is bound as a schedule's, and opens in those runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Payload, SerializationContext } from '@temporalio/common';

export const BINDING_METADATA = 'encryption-binding';
export const BOUND_NAMESPACE_METADATA = 'encryption-namespace';
export const BOUND_WORKFLOW_METADATA = 'encryption-workflow-id';

/** `workflow`: that workflow only; `schedule`: the schedule action's id and the runs it starts. */
export type BindingKind = 'workflow' | 'schedule';

export interface WorkflowBinding {
  kind: BindingKind;
  namespace: string;
  workflowId: string;
}

/** Outcome workflows whose results Nexus delivers into the caller's workflow (src/contracts/nexus-service.ts). */
const NEXUS_OUTCOME_PREFIX = 'nexus-order/';

export function isUnboundWorkflow(workflowId: string): boolean {
  return workflowId.startsWith(NEXUS_OUTCOME_PREFIX);
}

const scheduleAction = new AsyncLocalStorage<true>();

/**
 * Runs `fn` (a schedule's create or update) so that the payloads it encodes for a workflow are bound
 * as a schedule action's: they open in the runs the schedule starts (`${workflowId}-${time}`).
 */
export function forScheduleAction<T>(fn: () => Promise<T>): Promise<T> {
  return scheduleAction.run(true, fn);
}

/** The binding for a payload encoded with `context` (none without a workflow id). */
export function bindingFor(context: SerializationContext | undefined): WorkflowBinding | undefined {
  const workflowId = context?.workflowId;
  if (!context || !workflowId || isUnboundWorkflow(workflowId)) return undefined;
  const kind: BindingKind =
    context.type === 'workflow' && scheduleAction.getStore() ? 'schedule' : 'workflow';
  return { kind, namespace: context.namespace, workflowId };
}

/** The binding as it enters the associated data: unambiguous whatever the ids hold. */
export function serializeBinding(binding: WorkflowBinding): string {
  return JSON.stringify([binding.kind, binding.namespace, binding.workflowId]);
}

export function bindingMetadata(binding: WorkflowBinding): Record<string, Uint8Array> {
  return {
    [BINDING_METADATA]: Buffer.from(binding.kind),
    [BOUND_NAMESPACE_METADATA]: Buffer.from(binding.namespace),
    [BOUND_WORKFLOW_METADATA]: Buffer.from(binding.workflowId),
  };
}

/**
 * The binding a bound envelope's metadata names (checked by the associated data as it opens), or a
 * message saying what is missing.
 */
export function bindingOf(payload: Payload): WorkflowBinding | string {
  const read = (key: string) => {
    const v = payload.metadata?.[key];
    return v ? Buffer.from(v).toString('utf8') : undefined;
  };
  const kind = read(BINDING_METADATA);
  const namespace = read(BOUND_NAMESPACE_METADATA);
  const workflowId = read(BOUND_WORKFLOW_METADATA);
  if ((kind !== 'workflow' && kind !== 'schedule') || namespace === undefined || !workflowId)
    return `bound payload without a valid workflow binding ('${BINDING_METADATA}', '${BOUND_NAMESPACE_METADATA}', '${BOUND_WORKFLOW_METADATA}' metadata)`;
  return { kind, namespace, workflowId };
}

/** The time a Temporal Schedule appends to its action's workflow id (Go's RFC 3339, UTC, whole seconds). */
const SCHEDULED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * Why a payload bound by `binding` may not be decoded with `context`, or undefined when it may (a
 * context without a workflow id checks nothing).
 */
export function bindingMismatch(
  binding: WorkflowBinding,
  context: SerializationContext | undefined,
): string | undefined {
  const workflowId = context?.workflowId;
  if (!context || !workflowId) return undefined;
  if (context.namespace !== binding.namespace)
    return `payload bound to workflow '${binding.workflowId}' in namespace '${binding.namespace}' was decoded for workflow '${workflowId}' in namespace '${context.namespace}': refused (a ciphertext moved between workflows)`;
  if (workflowId === binding.workflowId) return undefined;
  const prefix = `${binding.workflowId}-`;
  if (
    binding.kind === 'schedule' &&
    workflowId.startsWith(prefix) &&
    SCHEDULED_TIME.test(workflowId.slice(prefix.length))
  )
    return undefined;
  return `payload bound to workflow '${binding.workflowId}'${binding.kind === 'schedule' ? " (a schedule's action)" : ''} was decoded for workflow '${workflowId}': refused (a ciphertext moved between workflows)`;
}
