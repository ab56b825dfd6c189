/**
 * Business metrics of the entity workflows, through the SDK's workflow metric meter (served on the
 * worker's Prometheus endpoint). The SDK drops these calls while a workflow task is replayed, so a
 * transition counts once however often its history is replayed. Labels are bounded: the workflow
 * kind, phase names and needs-action key classes — never references, ids or registry text.
 * Deterministic: workflow APIs and pure code only.
 */
import { metricMeter, workflowInfo } from '@temporalio/workflow';

/** Phase-duration histograms, seconds of workflow time since the workflow chain started. */
export const TIME_TO_READY_METRIC = 'tcr_time_to_ready_seconds';
export const TIME_TO_RUNNING_METRIC = 'tcr_time_to_running_seconds';

/** `brandWorkflow` → `brand`, `campaignWorkflow` → `campaign`, `vetWorkflow` → `vet`. */
function kind(): string {
  return workflowInfo().workflowType.replace(/Workflow$/, '');
}

const keyFamilies = ['vet', 'suspended', 'nudge'] as const;
const literalKey = /^[a-z]+(?:-[a-z]+){0,3}$/;

/**
 * The bounded class of a needs-action key: `vet-3` → `vet`, `suspended-10017` → `suspended`,
 * `nudge-{intent}` → `nudge`; a literal key (`identity`, `registry-error`, `fee-approval`…) is its
 * own class; anything else → `other`.
 */
export function actionKeyClass(key: string): string {
  for (const family of keyFamilies) if (key.startsWith(`${family}-`)) return family;
  return literalKey.test(key) && key.length <= 40 ? key : 'other';
}

export function recordPhaseTransition(from: string, to: string): void {
  const k = kind();
  metricMeter
    .createCounter('tcr_phase_transitions_total', undefined, 'Phase transitions of registrations')
    .add(1, { kind: k, from, to });
  const target =
    k === 'brand' && to === 'ready'
      ? TIME_TO_READY_METRIC
      : k === 'campaign' && to === 'running'
        ? TIME_TO_RUNNING_METRIC
        : undefined;
  if (target === undefined) return;
  const seconds = Math.max(0, (Date.now() - workflowInfo().startTime.getTime()) / 1000);
  metricMeter
    .createHistogram(target, 'float', undefined, 'Workflow time from the start to this phase')
    .record(seconds, { kind: k });
}

export function recordNeedsAction(change: 'raised' | 'cleared', key: string): void {
  metricMeter
    .createCounter(`tcr_needs_action_${change}_total`, undefined, `Needs-action entries ${change}`)
    .add(1, { kind: kind(), class: actionKeyClass(key) });
}
