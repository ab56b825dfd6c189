/**
 * Business metrics (issue 22, item 3): a brand runs through needs-correction to ready with the real
 * registry activities against the in-process simulator, on the time-skipping server, under a Runtime
 * whose Prometheus exporter this test scrapes. The workflows' tcr_ metrics (phase transitions,
 * needs-action raised / cleared by key class, time to ready) and the registry answers counted from
 * the client's HTTP calls (by endpoint template and class, billable creates) appear with bounded
 * labels, and no label value anywhere in the scrape carries the brand's reference, EIN, e-mail,
 * company name or registry id.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARKED_EVENTS_WORKFLOW_TYPE, type ParkedEventsWorkflow } from '../../src/contracts/parked-events.js';
import {
  claimParkedEventsSignal,
  type RegistryEventDelivery,
  registryEventSignal,
} from '../../src/contracts/signals.js';
import { WRITE_BUDGET_WORKFLOW_TYPE } from '../../src/contracts/write-budget.js';
import {
  observeRegistryAnswers,
  observeWriteBudget,
  registryEndpointTemplate,
  runtimeTelemetryOptions,
} from '../../src/observability/index.js';
import { waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import { correctBrand, startBrandOrder } from '../../src/orders/index.js';
import { actionKeyClass } from '../../src/workflows/entity/metrics.js';
import {
  deliver,
  orderBenchBrand,
  orderBenchCampaign,
  startCampaignBench,
} from '../fixtures/campaign-env.js';
import { brandRegistration, uniqueReference, waitForStatus } from '../fixtures/workflow-harness.js';
import {
  type SimulatorHarness,
  startTestSimulator,
  withSimulatorWorkers,
} from '../fixtures/workflow-simulator.js';
import { installPrometheusRuntime } from '../support/prometheus-runtime.js';
import { quietTestLogger } from '../support/quiet-log.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

const having = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe('registryEndpointTemplate', () => {
  it('keeps the API words and turns every other segment into {id}, without the query', () => {
    expect(registryEndpointTemplate('/v2/brand/B1X2Y3Z?x=1')).toBe('/brand/{id}');
    expect(registryEndpointTemplate('/base/v2/brand/nonBlocking')).toBe('/brand/nonBlocking');
    expect(registryEndpointTemplate('/v2/campaignBuilder/brand/B1/usecase/MARKETING')).toBe(
      '/campaignBuilder/brand/{id}/usecase/{id}',
    );
    expect(registryEndpointTemplate('/v2/webhook/subscription/BRAND')).toBe('/webhook/subscription/{id}');
    expect(registryEndpointTemplate('/v2/brand?referenceId=ref-1&page=1')).toBe('/brand');
    expect(registryEndpointTemplate('/metrics')).toBeUndefined();
  });
});

describe('actionKeyClass', () => {
  it('reduces needs-action keys to a bounded class', () => {
    expect(actionKeyClass('vet-3')).toBe('vet');
    expect(actionKeyClass('suspended-10017')).toBe('suspended');
    expect(actionKeyClass('suspended-unknown')).toBe('suspended');
    expect(actionKeyClass('nudge-approve')).toBe('nudge');
    expect(actionKeyClass('registry-error')).toBe('registry-error');
    expect(actionKeyClass('identity')).toBe('identity');
    expect(actionKeyClass('brand-B1X2Y3Z')).toBe('other');
    expect(actionKeyClass('ref 42')).toBe('other');
  });
});

function assertNoLabelContains(samples: Sample[], forbidden: (string | undefined)[]): void {
  const values = forbidden.filter((v): v is string => typeof v === 'string' && v.length > 0);
  for (const sample of samples)
    for (const value of Object.values(sample.labels))
      for (const secret of values)
        expect(value, `${sample.name} ${JSON.stringify(sample.labels)}`).not.toContain(secret);
}

describe('business metrics on the worker Prometheus endpoint', () => {
  let env: TestWorkflowEnvironment;
  let harness: SimulatorHarness;
  let metricsUrl: string;
  let stopObserving: () => void;
  let stopObservingBudget: () => void;

  beforeAll(async () => {
    // A Runtime that serves Prometheus metrics replaces the quiet one (its exporter on a probed
    // port, retried if taken).
    metricsUrl = await installPrometheusRuntime((bindAddress) => ({
      // The quiet test logger: the core's warnings and the worker's go to test-results/logs too.
      ...runtimeTelemetryOptions({ prometheusBindAddress: bindAddress, logger: quietTestLogger }),
    }));
    stopObserving = observeRegistryAnswers(Runtime.instance().metricMeter);
    stopObservingBudget = observeWriteBudget(Runtime.instance().metricMeter);
    env = await timeSkippingEnv();
    harness = await startTestSimulator();
  });

  const scrape = async () => {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    const samples = parseScrape(await response.text());
    const tcr = samples.filter((s) => s.name.startsWith('tcr_'));
    const shown = tcr.map((s) => `${s.name} ${JSON.stringify(s.labels)} ${s.value}`).join('\n');
    return { samples, tcr, shown };
  };

  afterAll(async () => {
    stopObserving?.();
    stopObservingBudget?.();
    await harness?.sim.close();
    await env?.teardown();
  });

  it('counts phases, needs-action classes, time to ready and registry answers, with bounded labels', async () => {
    const reference = uniqueReference('metrics');
    const brand = brandRegistration({ companyName: 'Acme UNVERIFIED Widgets Inc' });
    // The first brand read answers 429 (Retry-After 1 s); the client waits and retries.
    await harness.control.addFault({
      kind: 'rate-limit',
      method: 'GET',
      pathPattern: '^/v2/brand/[^/]+$',
      count: 1,
      retryAfterSeconds: 1,
    });
    const { brandId, account } = await withSimulatorWorkers(
      env,
      harness.sim,
      async ({ taskQueue, account, track }) => {
        const { handle } = await startBrandOrder(env.client, { reference, account, brand }, { taskQueue });
        track(handle);
        const stuck = await waitForStatus(handle, (s) => s.phase === 'needs-correction');
        expect(stuck.needsAction.map((a) => a.key)).toContain('identity');
        const corrected = await correctBrand(env.client, reference, {
          patch: { companyName: 'Acme Widgets Inc' },
          revet: true,
        });
        expect(corrected).toMatchObject({ outcome: 'done', phase: 'ready' });
        return { brandId: stuck.brandId as string, account };
      },
    );

    const { samples, tcr, shown } = await scrape();

    // Workflows: phase transitions, needs-action by class, time to ready.
    expect(
      having(tcr, 'tcr_phase_transitions_total', { kind: 'brand', to: 'needs-correction' }),
      shown,
    ).not.toEqual([]);
    expect(having(tcr, 'tcr_phase_transitions_total', { kind: 'brand', to: 'ready' }), shown).not.toEqual([]);
    expect(
      having(tcr, 'tcr_needs_action_raised_total', { kind: 'brand', class: 'identity' }),
      shown,
    ).not.toEqual([]);
    expect(
      having(tcr, 'tcr_needs_action_cleared_total', { kind: 'brand', class: 'identity' }),
      shown,
    ).not.toEqual([]);
    const readyCount = having(tcr, 'tcr_time_to_ready_seconds_count', { kind: 'brand' });
    expect(
      readyCount.map((s) => s.value),
      shown,
    ).toEqual([1]);
    // The buckets are the business ones (1 min … 30 days), not the SDK's default millisecond buckets.
    expect(having(tcr, 'tcr_time_to_ready_seconds_bucket', { le: '2592000' }), shown).not.toEqual([]);

    // Activities: registry answers by endpoint template and class, billable creates.
    expect(
      having(tcr, 'tcr_registry_answers_total', {
        method: 'POST',
        endpoint: '/brand/nonBlocking',
        class: 'ok',
      }),
      shown,
    ).not.toEqual([]);
    expect(
      having(tcr, 'tcr_registry_answers_total', { method: 'GET', endpoint: '/brand/{id}', class: 'ok' }),
      shown,
    ).not.toEqual([]);
    expect(
      having(tcr, 'tcr_registry_rate_limited_total', { method: 'GET', endpoint: '/brand/{id}' }).map(
        (s) => s.value,
      ),
      shown,
    ).toEqual([1]);
    expect(
      having(tcr, 'tcr_registry_answers_total', {
        method: 'GET',
        endpoint: '/brand/{id}',
        class: 'rate-limited',
        status: '429',
      }),
      shown,
    ).not.toEqual([]);
    expect(
      having(tcr, 'tcr_billable_creates_total', { what: 'brand-registration' }).map((s) => s.value),
      shown,
    ).toEqual([1]);

    // The account's write budget: every write given a reservation, by kind (the registration in the
    // background; the operator's correction, its update and the revet, interactive), the waits, and
    // the limit to divide by. A write that met its socket past its deadline was held back, unsent, and
    // reserved again: it counts in the writes and in the late ones (run 1 of attempt 15, under load:
    // 2 background writes, 1 late, one registration sent). It is no registry answer.
    const budgetWrites = (kind: string) =>
      having(tcr, 'tcr_write_budget_writes_total', { account, kind }).map((s) => s.value);
    // (A counter nothing was added to has no series.)
    const late = having(tcr, 'tcr_write_budget_late_total', { account }).map((s) => s.value)[0] ?? 0;
    const background = budgetWrites('background');
    expect(background, shown).toHaveLength(1);
    expect(background[0], shown).toBeGreaterThanOrEqual(1);
    expect(background[0], shown).toBeLessThanOrEqual(1 + late);
    expect(having(tcr, 'tcr_registry_answers_total', { class: 'network' }), shown).toEqual([]);
    expect(budgetWrites('interactive'), shown).toHaveLength(1);
    expect(budgetWrites('interactive')[0]).toBeGreaterThanOrEqual(2);
    for (const kind of ['background', 'interactive'])
      expect(
        having(tcr, 'tcr_write_budget_wait_seconds_count', { account, kind }).map((s) => s.value),
        shown,
      ).toEqual(budgetWrites(kind));
    expect(
      having(tcr, 'tcr_write_budget_limit', { account }).map((s) => s.value),
      shown,
    ).toEqual([20]);

    // No label value anywhere carries personal data or an id.
    expect([reference, brandId, brand.ein, brand.email].every((v) => typeof v === 'string' && v !== '')).toBe(
      true,
    );
    assertNoLabelContains(samples, [reference, brandId, brand.ein, brand.email, 'Acme', 'UNVERIFIED']);
    // The endpoint label only ever holds templates.
    for (const s of having(tcr, 'tcr_registry_answers_total', {}))
      expect(s.labels.endpoint).toMatch(/^(\/([a-zA-Z]+|\{id\}))+$/);
  });

  it('counts a campaign to running: time to running, the billed creation, no ids in labels', async () => {
    const bench = await startCampaignBench(env);
    try {
      const ordered = await orderBenchBrand(bench, bench.track, { until: 'ready' });
      const brand = ordered.status!;
      const { reference, handle } = await orderBenchCampaign(bench, ordered.brandReference);
      bench.track(handle);
      const shared = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
      const campaignId = shared.campaignId as string;
      await bench.control.acceptShare(campaignId);
      await deliver(handle, {
        eventType: 'CAMPAIGN_SHARE_ACCEPT',
        campaignId,
        campaignReferenceId: reference,
      });
      await deliver(handle, {
        eventType: 'CAMPAIGN_DCA_COMPLETE',
        campaignId,
        campaignReferenceId: reference,
      });
      await waitForCampaignPhase(env.client, reference, 'running', 20_000);

      const { samples, tcr, shown } = await scrape();
      expect(
        having(tcr, 'tcr_phase_transitions_total', { kind: 'campaign', to: 'running' }),
        shown,
      ).not.toEqual([]);
      expect(
        having(tcr, 'tcr_time_to_running_seconds_count', { kind: 'campaign' }).map((s) => s.value),
        shown,
      ).toEqual([1]);
      expect(
        having(tcr, 'tcr_billable_creates_total', { what: 'campaign-creation' }).map((s) => s.value),
        shown,
      ).toEqual([1]);
      expect(
        having(tcr, 'tcr_registry_answers_total', {
          method: 'POST',
          endpoint: '/campaignBuilder',
          class: 'ok',
        }),
        shown,
      ).not.toEqual([]);
      assertNoLabelContains(samples, [reference, ordered.brandReference, campaignId, brand.brandId]);
    } finally {
      await bench.endWorkflows();
      await bench.close();
    }
  });
  it('counts parked events and their age when forwarded and when expired, by kind only', async () => {
    const delivery = (n: number, brandId: string): RegistryEventDelivery => ({
      event: { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId, brandIdentityStatus: 'VERIFIED' } as never,
      // Received two hours ago: the age at release is over the 900 s bucket whatever the clock does.
      receivedAt: new Date(Date.now() - 2 * 3_600_000).toISOString(),
      deliveryId: `metrics-parked-${brandId}-${n}`,
    });
    const unclaimed = `B${uniqueReference('park').replace(/\W/g, '').toUpperCase()}`;
    const claimed = `B${uniqueReference('own').replace(/\W/g, '').toUpperCase()}`;
    await withSimulatorWorkers(env, harness.sim, async ({ taskQueue, track }) => {
      const park = (brandId: string, n: number) =>
        env.client.workflow.signalWithStart<ParkedEventsWorkflow, [RegistryEventDelivery]>(
          PARKED_EVENTS_WORKFLOW_TYPE,
          {
            workflowId: `parked/brand/${brandId}`,
            taskQueue,
            args: [
              {
                kind: 'brand',
                keyType: 'registryId',
                key: brandId,
                // Seconds, not the hour this case had: on the real clock if time skipping stands still
                // behind an earlier case's workflows (a 60 s timeout in CI, twice, with an hour).
                retentionMs: 5_000,
                claimGraceMs: 1_000,
              },
            ],
            signal: registryEventSignal,
            signalArgs: [delivery(n, brandId)],
          },
        );
      // Two events nobody claims (they expire after the retention); one claimed by an owner that takes it
      // (any running workflow: here an idle write budget, which ignores the forwarded signal).
      const expiring = track(await park(unclaimed, 1));
      await park(unclaimed, 2);
      const parked = track(await park(claimed, 1));
      const owner = track(
        await env.client.workflow.start(WRITE_BUDGET_WORKFLOW_TYPE, {
          workflowId: `metrics-owner-${claimed}`,
          taskQueue,
          args: [{}],
        }),
      );
      await parked.signal(claimParkedEventsSignal, { ownerWorkflowId: owner.workflowId });
      expect((await parked.result()).outcome).toBe('claimed');
      expect((await expiring.result()).outcome).toBe('expired');
    });
    const { samples, tcr, shown } = await scrape();
    expect(
      having(tcr, 'tcr_parked_events_total', { kind: 'brand' }).map((s) => s.value),
      shown,
    ).toEqual([3]);
    const released = (outcome: string) =>
      having(tcr, 'tcr_parked_events_released_total', { kind: 'brand', outcome }).map((s) => s.value);
    expect(released('forwarded'), shown).toEqual([1]);
    expect(released('expired'), shown).toEqual([2]);
    // Ages in the parked buckets (seconds to 30 days), from the ingress's receipt two hours ago.
    const ages = (outcome: string) =>
      having(tcr, 'tcr_parked_event_age_seconds_count', { kind: 'brand', outcome }).map((s) => s.value);
    expect(ages('forwarded'), shown).toEqual([1]);
    expect(ages('expired'), shown).toEqual([2]);
    expect(
      having(tcr, 'tcr_parked_event_age_seconds_bucket', { outcome: 'expired', le: '900' }).map(
        (s) => s.value,
      ),
      shown,
    ).toEqual([0]);
    expect(having(tcr, 'tcr_parked_event_age_seconds_bucket', { le: '2592000' }), shown).not.toEqual([]);
    assertNoLabelContains(samples, [unclaimed, claimed]);
  });
});
