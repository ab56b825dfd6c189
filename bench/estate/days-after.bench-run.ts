/**
 * The estate in the days after an import (issue 19, the steady state), with time skipped: the steady
 * state of an estate is set by its timers (pending entities poll every 2 days ± 20 % once their polls
 * add up to a day, settled ones keep a 7-day safety timer with jitter), so it shows only days after
 * the import, which the dev server would need days of real time for. Here the Java time-skipping
 * server runs the product's workers (createWorkers: the real activities) against the simulator seeded
 * with an estate no workflow owns; the import adopts it; then the run skips DAYS days one at a time,
 * moving the simulator's clock with Temporal's so both agree on what time it is (the registry's own
 * timed changes happen, and their webhooks are lost: nothing is subscribed).
 *
 * Per day: registry reads (by endpoint), writes (must be 0), workflow and activity tasks (the worker's
 * Prometheus counters). Per registration and day, scaled to 100,000 registrations: reads an hour and
 * their share of the read budget (20 a second), workflow tasks a second. The hourly sweep, which needs
 * Temporal Schedules (the test server has none), is added by arithmetic from its page count; its
 * measured cost is the estate bench's (steady-state.bench-run.ts). The test server has no visibility
 * either: the import's owner lookups (which workflow owns a registry id) are answered by a stand-in
 * that knows the workflows the import started (`visibilityStandIn`); everything else is the product's.
 *
 * Figures, not assertions on time (a write, or an estate not adopted, still fails).
 *   nice -n 19 npx vitest run --config bench/estate/vitest.config.ts bench/estate/days-after.bench-run.ts
 * DAYS_BRANDS (default 400), DAYS_CAMPAIGNS (1,600), DAYS_AFTER (14 days). The seed is the estate
 * bench's (19), so the mix of statuses is the same. Results: bench/estate/results-days.<time>.json.
 */
import { loadavg } from 'node:os';
import type { Client, WorkflowExecutionInfo, WorkflowStartOptions } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { expect, it } from 'vitest';
import {
  createCampaignReadActivities,
  createCampaignWriteActivities,
} from '../../src/activities/campaign-activities.js';
import { createEstateActivities } from '../../src/activities/estate-activities.js';
import { withHeartbeat } from '../../src/activities/heartbeat.js';
import {
  createRegistryReadActivities,
  createRegistryWriteActivities,
} from '../../src/activities/registry-activities.js';
import { BRAND_WORKFLOW_TYPE } from '../../src/contracts/brand.js';
import { BrandIdKey, CampaignIdKey } from '../../src/contracts/search-attributes.js';
import { importStatus, startImport } from '../../src/orders/estate-client.js';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import { startSimulator } from '../../src/simulator/index.js';
import { freePort } from '../../src/stack/ports.js';
import { createWorkers, registryResolver } from '../../src/workers/create-workers.js';
import { workflowsPath } from '../../test/fixtures/workflow-harness.js';
import { timeSkippingEnv, workflowBundle } from '../../test/support/temporal-env.js';
import { ACCOUNT, benchAccount } from '../support/bench-stack.js';
import { isListRead, isWrite, type ProxiedCall, startCountingProxy } from '../support/counting-proxy.js';
import { counterSum as counter } from '../support/prometheus.js';
import { writeResults } from '../support/results.js';
import { round, until } from '../support/stats.js';

const BRANDS = Number(process.env.DAYS_BRANDS ?? 400);
const CAMPAIGNS = Number(process.env.DAYS_CAMPAIGNS ?? 1_600);
const DAYS = Number(process.env.DAYS_AFTER ?? 14);
const READS_PER_SECOND = 20;
const DAY_MS = 86_400_000;
/** The registrations the targets are set for. */
const ESTATE = 100_000;
/** The sweep's page size (src/workers/sweep-schedule.ts default). */
const SWEEP_PAGE = 500;

/**
 * `client`, with `workflow.list` answered from the workflows started through it (the test server has
 * no visibility): the import's owner queries name a workflow type and registry ids (`... IN ('B1', ...)`),
 * and get the started workflows of that type whose search attributes hold one of those ids.
 */
function visibilityStandIn(client: Client): Client {
  const started: { type: string; info: Partial<WorkflowExecutionInfo> }[] = [];
  const workflow = new Proxy(client.workflow, {
    get(target, prop, receiver) {
      if (prop === 'start')
        return async (type: string, options: WorkflowStartOptions) => {
          const handle = await target.start(type, options);
          started.push({
            type,
            info: {
              workflowId: options.workflowId,
              status: { code: 1, name: 'RUNNING' },
              typedSearchAttributes: options.typedSearchAttributes as TypedSearchAttributes,
            },
          });
          return handle;
        };
      if (prop === 'list')
        return ({ query }: { query: string }) => {
          const type = /WorkflowType = '([^']+)'/.exec(query)?.[1];
          const ids = new Set(
            [...(/IN \(([^)]*)\)/.exec(query)?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]),
          );
          const key = type === BRAND_WORKFLOW_TYPE ? BrandIdKey : CampaignIdKey;
          return (async function* () {
            for (const s of started)
              if (s.type === type && ids.has(s.info.typedSearchAttributes?.get(key) ?? '')) yield s.info;
          })();
        };
      return Reflect.get(target, prop, receiver);
    },
  });
  return new Proxy(client, {
    get: (target, prop, receiver) => (prop === 'workflow' ? workflow : Reflect.get(target, prop, receiver)),
  });
}

const endpointOf = (c: ProxiedCall) =>
  `${c.method} ${c.path.replace(/\/[BC][0-9A-Z]+/g, '/:id')} ${c.status}`;

it(`estate of ${BRANDS} brands and ${CAMPAIGNS} campaigns, ${DAYS} days after its import (time skipped)`, async () => {
  const loadAverageAtStart = loadavg()[0];
  // The worker's task counters, as the estate bench reads them from a worker process.
  const metrics = `http://127.0.0.1:${await freePort()}/metrics`;
  Runtime.install({
    telemetryOptions: { metrics: { prometheus: { bindAddress: new URL(metrics).host } } },
  });
  const env = await timeSkippingEnv();
  const sim = await startSimulator({ timeScale: 1 });
  const control = new SimulatorControl(sim.url);
  const proxy = await startCountingProxy(sim.url);
  const accounts = [benchAccount(proxy.url)];
  const resolve = registryResolver(accounts);
  const workers = await createWorkers(
    { temporal: { address: 'unused (connection given)', namespace: 'default' }, accounts },
    {
      connection: env.nativeConnection,
      workflowBundle: await workflowBundle(workflowsPath),
      // The product's activities, the estate's with the visibility stand-in (writes unbudgeted: none
      // may be made, and the run asserts it).
      activitiesFor: () => ({
        reads: withHeartbeat({
          ...createRegistryReadActivities(resolve),
          ...createCampaignReadActivities(resolve),
          ...createEstateActivities(resolve, { temporalClient: visibilityStandIn(env.client) }),
        }),
        writes: withHeartbeat({
          ...createRegistryWriteActivities(resolve),
          ...createCampaignWriteActivities(resolve),
        }),
      }),
    },
  );
  const running = workers.run();
  try {
    const seeded = await control.seed({ brands: BRANDS, campaigns: CAMPAIGNS, seed: 19 });

    // Import, watched by its query (waiting on its result would let the server skip time meanwhile).
    const importStarted = Date.now();
    await startImport(env.client, { account: ACCOUNT });
    const imported = await until(
      'the import done',
      async () => {
        const s = await importStatus(env.client, ACCOUNT);
        return s.state === 'done' ? s : undefined;
      },
      3_600_000,
      1_000,
    );
    const adopted = imported.counts.brand.adopted + imported.counts.campaign.adopted;
    expect(adopted).toBe(BRANDS + CAMPAIGNS);
    // Settled once the adopted workflows' first reads (each campaign's share, each brand's vets) are
    // done: no registry call for 10 s.
    await until(
      'the adopted workflows quiet',
      async () => (Date.now() - (proxy.calls.at(-1)?.startMs ?? 0) > 10_000 ? true : undefined),
      3_600_000,
      1_000,
    );
    const importResult = {
      ms: Date.now() - importStarted,
      adopted,
      reads: proxy.calls.filter((c) => !isWrite(c)).length,
      writes: proxy.calls.filter(isWrite).length,
    };
    console.info('import', importResult);
    expect(importResult.writes).toBe(0);

    // The days after, one at a time: the simulator's clock moves with Temporal's.
    const days: {
      day: number;
      realMs: number;
      reads: number;
      writes: number;
      workflowTasks: number;
      activityTasks: number;
      byEndpoint: [string, number][];
    }[] = [];
    for (let day = 1; day <= DAYS; day++) {
      const from = proxy.calls.length;
      const wft = await counter(metrics, 'temporal_workflow_task_execution_latency_count');
      const act = await counter(metrics, 'temporal_activity_execution_latency_count');
      const started = Date.now();
      await control.advanceClock(DAY_MS / 1000);
      await env.sleep(DAY_MS);
      // What the day's last timers started finishes before the day is counted.
      await until(
        `day ${day} quiet`,
        async () => (Date.now() - (proxy.calls.at(-1)?.startMs ?? 0) > 2_000 ? true : undefined),
        600_000,
        500,
      );
      const calls = proxy.calls.slice(from);
      const byEndpoint = Object.entries(
        calls.reduce<Record<string, number>>((counts, c) => {
          counts[endpointOf(c)] = (counts[endpointOf(c)] ?? 0) + 1;
          return counts;
        }, {}),
      ).sort((a, b) => b[1] - a[1]);
      days.push({
        day,
        realMs: Date.now() - started,
        reads: calls.filter((c) => !isWrite(c) && !isListRead(c)).length,
        writes: calls.filter(isWrite).length,
        workflowTasks: (await counter(metrics, 'temporal_workflow_task_execution_latency_count')) - wft,
        activityTasks: (await counter(metrics, 'temporal_activity_execution_latency_count')) - act,
        byEndpoint,
      });
      console.info('day', days.at(-1));
    }
    expect(days.reduce((n, d) => n + d.writes, 0)).toBe(0);

    // Per registration and day, over the second week (every pending entity in its 2-day tail, every
    // settled one past its first safety timer), and scaled to the 100,000.
    const registrations = BRANDS + CAMPAIGNS;
    const perDay = (list: typeof days, pick: (d: (typeof days)[number]) => number) =>
      list.reduce((n, d) => n + pick(d), 0) / list.length / registrations;
    const scaled = (list: typeof days) => {
      const pollReadsPerHour = (perDay(list, (d) => d.reads) * ESTATE) / 24;
      // The hourly sweep: a page of 500 per list read, brands and campaigns in the estate bench's mix.
      const sweepReadsPerHour =
        Math.ceil((ESTATE * BRANDS) / registrations / SWEEP_PAGE) +
        Math.ceil((ESTATE * CAMPAIGNS) / registrations / SWEEP_PAGE);
      return {
        pollReadsPerHour: round(pollReadsPerHour, 0),
        sweepReadsPerHour,
        readShareOfBudget: round((pollReadsPerHour + sweepReadsPerHour) / 3600 / READS_PER_SECOND, 4),
        workflowTasksPerSecond: round((perDay(list, (d) => d.workflowTasks) * ESTATE) / 86_400, 3),
        activityTasksPerSecond: round((perDay(list, (d) => d.activityTasks) * ESTATE) / 86_400, 3),
      };
    };
    const secondWeek = days.filter((d) => d.day > 7);
    const results = {
      when: new Date().toISOString(),
      machine: { loadAverageAtStart },
      estate: {
        brands: BRANDS,
        campaigns: CAMPAIGNS,
        days: DAYS,
        seed: { seed: 19, ...seeded.campaignKinds },
      },
      import: importResult,
      days,
      perRegistrationAndDay: {
        allDays: {
          reads: round(
            perDay(days, (d) => d.reads),
            4,
          ),
          workflowTasks: round(
            perDay(days, (d) => d.workflowTasks),
            4,
          ),
        },
        secondWeek: {
          reads: round(
            perDay(secondWeek, (d) => d.reads),
            4,
          ),
          workflowTasks: round(
            perDay(secondWeek, (d) => d.workflowTasks),
            4,
          ),
        },
      },
      at100k: { allDays: scaled(days), secondWeek: scaled(secondWeek.length > 0 ? secondWeek : days) },
    };
    console.info('at 100,000', results.at100k);
    writeResults(new URL('./results-days.json', import.meta.url), results);
  } finally {
    await workers.shutdown();
    await running.catch(() => undefined);
    await proxy.close();
    await sim.close();
    await env.teardown();
  }
}, 7_200_000);
