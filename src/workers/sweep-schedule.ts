/**
 * Each account's sweep Schedule (src/contracts/estate.ts): the workers create it or bring it up to
 * date as they start (TCR_SWEEP_EVERY, src/config/sweep-config.ts); `tcr sweep` shows it, runs a sweep
 * now, pauses and resumes it.
 */
import {
  type Client,
  ScheduleAlreadyRunning,
  type ScheduleDescription,
  type ScheduleHandle,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { forScheduleAction } from '../codec/workflow-binding.js';
import { messageOf } from '../common/error-message.js';
import { durationMs } from '../config/sweep-config.js';
import type { WorkerConfig } from '../config/worker-config.js';
import {
  ESTATE_SWEEP_WORKFLOW_TYPE,
  type EstatePaging,
  type EstateSweepInput,
  type SweepStatus,
  sweepScheduleId,
  sweepStatusQuery,
  sweepWorkflowId,
} from '../contracts/estate.js';
import { AccountKey } from '../contracts/search-attributes.js';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';
import { DEFAULT_RATE_LIMITS } from '../registry/rate-limiter.js';

type SweepWorkflow = (input: EstateSweepInput) => Promise<SweepStatus>;

export interface SweepScheduleSettings {
  account: string;
  /** How often: `1h`, `30m`, ... (src/config/sweep-config.ts). */
  every: string;
  paging?: EstatePaging;
  /** Workflow task queue (default `tcr-workflows`). */
  taskQueue?: string;
}

function scheduleOptions(settings: SweepScheduleSettings) {
  const input: EstateSweepInput = {
    account: settings.account,
    ...(settings.paging ? { paging: settings.paging } : {}),
  };
  return {
    spec: { intervals: [{ every: settings.every }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: ESTATE_SWEEP_WORKFLOW_TYPE,
      // The Schedule appends the scheduled time: sweep/{account}-2026-11-27T05:00:00Z.
      workflowId: sweepWorkflowId(settings.account),
      taskQueue: settings.taskQueue ?? WORKFLOW_TASK_QUEUE,
      args: [input] as [EstateSweepInput],
      typedSearchAttributes: new TypedSearchAttributes([{ key: AccountKey, value: settings.account }]),
    },
    // One sweep at a time: a sweep still running when the next is due makes the next one skip.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
  };
}

/**
 * Creates the account's sweep Schedule, or updates it when its interval, paging or task queue
 * differ. Returns what it did. Idempotent: every worker process may call it as it starts.
 */
export async function ensureSweepSchedule(
  client: Client,
  settings: SweepScheduleSettings,
): Promise<'created' | 'updated' | 'unchanged'> {
  const options = scheduleOptions(settings);
  const scheduleId = sweepScheduleId(settings.account);
  try {
    // The action's input is bound to the action's workflow id as a schedule's: it opens in the runs
    // the Schedule starts (`sweep/{account}-{time}`), src/codec/workflow-binding.ts.
    await forScheduleAction(() => client.schedule.create<SweepWorkflow>({ scheduleId, ...options }));
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(scheduleId);
  const current = await handle.describe();
  const action = current.action;
  const same =
    current.spec.intervals?.length === 1 &&
    Number(current.spec.intervals[0]!.every) === durationMs(settings.every) &&
    action.type === 'startWorkflow' &&
    action.workflowType === options.action.workflowType &&
    action.taskQueue === options.action.taskQueue &&
    JSON.stringify(action.args) === JSON.stringify(options.action.args);
  if (same) return 'unchanged';
  await forScheduleAction(() =>
    handle.update((previous) => ({ ...previous, spec: options.spec, action: options.action })),
  );
  return 'updated';
}

export function sweepSchedule(client: Client, account: string): ScheduleHandle {
  return client.schedule.getHandle(sweepScheduleId(account));
}

export interface SweepOverview {
  schedule?: { every: string[]; paused: boolean; nextRuns: string[]; recentRuns: string[] };
  /** The running sweep's status, or the last one's when none runs. */
  sweep?: SweepStatus;
  sweepWorkflowId?: string;
}

/** The account's Schedule and its latest sweep (running, or the last finished one). */
export async function describeSweep(client: Client, account: string): Promise<SweepOverview> {
  let description: ScheduleDescription;
  try {
    description = await sweepSchedule(client, account).describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return {};
    throw error;
  }
  const overview: SweepOverview = {
    schedule: {
      every: (description.spec.intervals ?? []).map((i) => `${Number(i.every) / 1000}s`),
      paused: description.state.paused,
      nextRuns: description.info.nextActionTimes.slice(0, 3).map((d) => d.toISOString()),
      recentRuns: description.info.recentActions.slice(-3).map((a) => a.takenAt.toISOString()),
    },
  };
  const latest =
    description.info.runningActions[0]?.workflow ??
    description.info.recentActions[description.info.recentActions.length - 1]?.action.workflow;
  if (latest) {
    overview.sweepWorkflowId = latest.workflowId;
    const handle = client.workflow.getHandle<SweepWorkflow>(latest.workflowId);
    overview.sweep = await handle.query(sweepStatusQuery).catch(async () => handle.result());
  }
  return overview;
}

/** Starts a sweep of the account now (through its Schedule: one at a time still holds). */
export async function sweepNow(client: Client, account: string): Promise<void> {
  await sweepSchedule(client, account).trigger(ScheduleOverlapPolicy.SKIP);
}

export interface SweepScheduleOutcome {
  account: string;
  outcome: 'created' | 'updated' | 'unchanged' | 'failed';
  every: string;
  error?: string;
}

/**
 * Creates or updates each account's sweep Schedule (config.sweep.every; none without it), its paging
 * within the account's read budget. A Schedule that cannot be set (e.g. the namespace refuses it) does
 * not stop the others: it is reported.
 */
export async function ensureSweepSchedules(
  client: Client,
  config: Pick<WorkerConfig, 'accounts' | 'sweep'>,
  taskQueue?: string,
): Promise<SweepScheduleOutcome[]> {
  const every = config.sweep?.every;
  if (!config.sweep || !every) return [];
  const outcomes: SweepScheduleOutcome[] = [];
  for (const account of config.accounts) {
    const budget = account.rateLimits ?? DEFAULT_RATE_LIMITS;
    try {
      const outcome = await ensureSweepSchedule(client, {
        account: account.name,
        every,
        paging: {
          readShare: config.sweep.readShare,
          recordsPerPage: config.sweep.recordsPerPage,
          readsPerSecond: budget.getsPerSecond,
        },
        ...(taskQueue ? { taskQueue } : {}),
      });
      outcomes.push({ account: account.name, outcome, every });
    } catch (error) {
      outcomes.push({ account: account.name, outcome: 'failed', every, error: messageOf(error) });
    }
  }
  return outcomes;
}
