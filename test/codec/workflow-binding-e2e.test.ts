/**
 * The workflow binding end to end (issue 35, item 1), on the dev server with the product's data
 * converter: a signal whose payload was lifted from another workflow's history (by someone who can
 * write to Temporal but holds no key) fails to decode on the worker, and the workflow never sees it,
 * while the legitimate signal, a continue-as-new, activities and the result work. A Schedule's action
 * created through `forScheduleAction` opens in the run it starts (`${workflowId}-${time}`); the same
 * action created without it is refused there.
 */
import { Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataConverter, EncryptionCodec, forScheduleAction, Keyring } from '../../src/codec/index.js';
import { devServerEnv } from '../support/temporal-env.js';
import { codecActivities, codecWorkflowsBundle } from './codec-bundle.js';
import type { HeldData, holdsData } from './codec-workflows.js';

const EventType = temporal.api.enums.v1.EventType;
type History = temporal.api.history.v1.IHistory;
const taskQueue = 'codec-binding';
const ring = Keyring.generate('kbe');
const held = (reference: string): HeldData => ({
  reference,
  ein: '912345678',
  phone: '+14155550177',
  email: 'binding.contact@example.org',
  firstName: 'Ottilie',
  generation: 0,
});

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let client: Client;
let worker: Worker;
let running: Promise<void>;
const namespace = () => env.namespace ?? 'default';

beforeAll(async () => {
  [env, bundle] = await Promise.all([devServerEnv(), codecWorkflowsBundle()]);
  client = new Client({ connection: env.connection, dataConverter: dataConverter({ keyring: ring }) });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: codecActivities,
    dataConverter: dataConverter({ keyring: ring }),
  });
  running = worker.run();
}, 180_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
}, 60_000);

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() - started > 30_000) throw new Error(`${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const waiting = (h: WorkflowHandle) =>
  until(
    `${h.workflowId} waiting for its token`,
    () => h.query<string>('stage'),
    (s) => s === 'waiting-for-token',
  );

/** A client that writes a given payload whatever it is asked to send: someone with Temporal access and no key. */
function replaying(payload: Payload): Client {
  const codec: PayloadCodec = {
    encode: async (payloads) => payloads.map(() => payload),
    decode: async (payloads) => payloads,
  };
  return new Client({ connection: env.connection, dataConverter: { payloadCodecs: [codec] } });
}

/** The messages of the history's failed workflow tasks, decoded with the ring for `workflowId`. */
async function taskFailures(history: History, workflowId: string): Promise<string[]> {
  const codec = new EncryptionCodec(ring);
  const messages: string[] = [];
  for (const e of history.events ?? []) {
    if (e.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) continue;
    const failure = e.workflowTaskFailedEventAttributes?.failure;
    const attributes = failure?.encodedAttributes;
    if (!attributes) {
      messages.push(failure?.message ?? '');
      continue;
    }
    const [open] = await codec.decode([attributes], { type: 'workflow', namespace: namespace(), workflowId });
    messages.push((defaultPayloadConverter.fromPayload(open!) as { message: string }).message);
  }
  return messages;
}

describe('a payload lifted from another workflow’s history', () => {
  it('fails to decode on the worker; the legitimate signal works', async () => {
    const stamp = Date.now();
    const start = (id: string) =>
      client.workflow.start<typeof holdsData>('holdsData', { taskQueue, workflowId: id, args: [held(id)] });
    const [a, b] = await Promise.all([start(`binding-a-${stamp}`), start(`binding-b-${stamp}`)]);
    await Promise.all([waiting(a), waiting(b)]);

    // The legitimate flow: A's token arrives, A continues as new (its input re-bound) and waits again.
    await a.signal('token', 'token-for-a');
    await until(
      'A continued as new',
      async () => (await a.describe()).runId,
      (runId) => runId !== a.firstExecutionRunId,
    );
    await waiting(client.workflow.getHandle(a.workflowId));

    // The attacker lifts A's signal from A's history and sends it to B.
    const history = await client.workflow.getHandle(a.workflowId, a.firstExecutionRunId).fetchHistory();
    const lifted = history.events?.find(
      (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    )?.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0];
    expect(lifted).toBeDefined();
    expect(Buffer.from(lifted!.metadata!['encryption-workflow-id']!).toString()).toBe(a.workflowId);
    await replaying(lifted as Payload)
      .workflow.getHandle(b.workflowId)
      .signal('token', 'ignored');

    const failures = await until(
      'B’s workflow task failed',
      async () => taskFailures(await b.fetchHistory(), b.workflowId),
      (m) => m.length > 0,
    );
    expect(failures[0]).toMatch(
      new RegExp(`bound to workflow '${a.workflowId}' was decoded for workflow '${b.workflowId}'`),
    );
    // B never received the token: it has not continued as new, and its history holds no new command.
    expect((await b.describe()).runId).toBe(b.firstExecutionRunId);
    const bHistory = await b.fetchHistory();
    expect(
      bHistory.events?.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW),
    ).toBe(false);
    await b.terminate('test done');
    await client.workflow.getHandle(a.workflowId).terminate('test done');
  }, 90_000);
});

describe('a Schedule’s action', () => {
  async function scheduledRun(scheduleId: string, marked: boolean): Promise<string> {
    const create = () =>
      client.schedule.create<typeof holdsData>({
        scheduleId,
        spec: { intervals: [{ every: '1 day' }] },
        action: {
          type: 'startWorkflow',
          workflowType: 'holdsData',
          workflowId: scheduleId,
          taskQueue,
          args: [held(scheduleId)],
        },
        state: { paused: true },
      });
    const handle = await (marked ? forScheduleAction(create) : create());
    await handle.trigger();
    const described = await until(
      `${scheduleId} ran`,
      () => handle.describe(),
      (d) => d.info.recentActions.length > 0,
    );
    await handle.delete();
    const action = described.info.recentActions[0]!.action;
    return action.workflow.workflowId;
  }

  it('created through forScheduleAction, opens in the run it starts ({id}-{time})', async () => {
    const id = `binding-schedule-${Date.now()}`;
    const runId = await scheduledRun(id, true);
    expect(runId).toMatch(new RegExp(`^${id}-\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`));
    const run = client.workflow.getHandle(runId);
    await waiting(run);
    await run.terminate('test done');
  }, 60_000);

  it('created without it, is refused there (the check is not weakened for other payloads)', async () => {
    const id = `binding-unmarked-${Date.now()}`;
    const runId = await scheduledRun(id, false);
    const run = client.workflow.getHandle(runId);
    const failures = await until(
      'the run’s first workflow task failed',
      async () => taskFailures(await run.fetchHistory(), runId),
      (m) => m.length > 0,
    );
    expect(failures[0]).toMatch(new RegExp(`bound to workflow '${id}' was decoded for workflow '${runId}'`));
    await run.terminate('test done');
  }, 60_000);
});
