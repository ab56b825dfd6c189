/**
 * The estate (issue 19) end to end on the dev server: a registry simulator seeded with brands and
 * campaigns registered before the product was adopted (every status the simulator models), the real
 * worker wiring behind a counting proxy (every registry call is seen), the ingress subscribed to the
 * simulator's campaign and sharing events, `tcr import` and `tcr sweep` as an operator types them.
 *
 * Import: every seeded entity gets one workflow in the phase its registry record puts it in, with no
 * write and no fee; an event parked before the import reaches its new workflow; a second import and
 * a page imported twice at once start nothing twice. Sweep: a campaign that expired while the ingress
 * was down (its webhook never arrived) is found by the sweep and its workflow woken; only it; and
 * the sweep's list reads stay within its share of the read budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWrite } from '../../bench/support/counting-proxy.js';
import { createEstateActivities } from '../../src/activities/estate-activities.js';
import type { BrandSnapshot } from '../../src/contracts/activity-types.js';
import type { BrandStatus } from '../../src/contracts/brand.js';
import type { CampaignStatus } from '../../src/contracts/campaign.js';
import {
  adoptedReference,
  ESTATE_SWEEP_WORKFLOW_TYPE,
  type EstateSweepInput,
  type SweepStatus,
} from '../../src/contracts/estate.js';
import { brandWorkflowId, campaignWorkflowId } from '../../src/contracts/ids.js';
import { AccountKey } from '../../src/contracts/search-attributes.js';
import { contactVerificationRequired } from '../../src/registry/rules.js';
import type { EntityType } from '../../src/registry/schemas.js';
import { cnpById } from '../../src/simulator/reference-data.js';
import { createWorkers, registryResolver } from '../../src/workers/create-workers.js';
import { ensureSweepSchedule } from '../../src/workers/sweep-schedule.js';
import { tcr } from '../cli/support.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';
import { workflowsPath } from '../fixtures/workflow-harness.js';
import { workflowBundle } from '../support/temporal-env.js';

const ACCOUNT = 'acme-estate';

/** A brand's record as the registry lists it: the fields the product reads too (BrandSnapshot). */
type BrandRecord = Omit<BrandSnapshot, 'optionalAttributes'>;
interface CampaignRecord {
  campaignId: string;
  referenceId?: string | null;
  status: string;
  mnoOperationStatus?: Record<string, string>;
}

/** The phase the spec's statuses put a brand in (written here from the spec, not from the product). */
function expectedBrandPhase(b: BrandRecord, now: Date): string {
  if (b.status !== 'ACTIVE') return 'deleted';
  if (contactVerificationRequired(b.entityType as EntityType, now) && !b.businessContactEmailVerifiedDate)
    return 'awaiting-contact-verification';
  if (b.identityStatus === 'UNVERIFIED') return 'needs-correction';
  if (b.identityStatus === 'SELF_DECLARED')
    return b.mobilePhoneVerifiedDate ? 'ready' : 'awaiting-sole-proprietor-verification';
  return 'ready';
}

/**
 * The phase a campaign's record and share put it in. An ACCEPTED share runs when its partner is a DCA
 * (spec: "once a DCA accepts, the campaign may run"); a CSP's waits in awaiting-dca for
 * CAMPAIGN_DCA_COMPLETE or the operator (mnoOperationStatus, a simulator extra, decides nothing).
 */
function expectedCampaignPhase(
  c: CampaignRecord,
  share: { sharingStatus: string; upstreamCnpId?: string | null } | null,
): string {
  if (c.status === 'EXPIRED') return 'expired';
  if (!share) return 'sharing';
  if (share.sharingStatus === 'PENDING') return 'share-pending';
  if (share.sharingStatus === 'DECLINED') return 'share-declined';
  return cnpById(share.upstreamCnpId ?? '')?.dca ? 'running' : 'awaiting-dca';
}

async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
) {
  const started = Date.now();
  let last: T | undefined;
  let error: unknown;
  for (;;) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (e) {
      error = e;
    }
    if (Date.now() - started > timeoutMs)
      throw new Error(
        `${what}: not within ${timeoutMs} ms; last ${JSON.stringify(last)} ${String(error ?? '')}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the estate: import and sweep (dev server, simulator, workers, ingress, tcr)', () => {
  let stack: TestStack;
  let brands: BrandRecord[];
  let campaigns: CampaignRecord[];

  /** A GET at the simulator as the test's own client (it shares the account's budget: a 429 waits and retries). */
  const get = async (path: string): Promise<unknown> => {
    for (;;) {
      const answer = await stack.simulator.api('GET', path);
      if (answer.status === 200) return answer.body;
      if (answer.status !== 429)
        throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  };
  const list = async <T>(kind: 'brand' | 'campaign'): Promise<T[]> =>
    ((await get(`/${kind}?page=1&recordsPerPage=500`)) as { records: T[] }).records;
  const brandStatus = (b: BrandRecord) =>
    stack.client.workflow
      .getHandle(
        brandWorkflowId(ACCOUNT, adoptedReference({ referenceId: b.referenceId, registryId: b.brandId })),
      )
      .query<BrandStatus>('status');
  const campaignStatus = (c: CampaignRecord) =>
    stack.client.workflow
      .getHandle(
        campaignWorkflowId(
          ACCOUNT,
          adoptedReference({ referenceId: c.referenceId, registryId: c.campaignId }),
        ),
      )
      .query<CampaignStatus>('status');
  /** Workflow ids of the account's brand and campaign workflows, one entry per run that did not continue as new. */
  const executions = async () => {
    const ids: string[] = [];
    for await (const info of stack.client.workflow.list({
      query: `${AccountKey.name} = '${ACCOUNT}' AND WorkflowType IN ('brandWorkflow', 'campaignWorkflow')`,
    }))
      if (info.status.name !== 'CONTINUED_AS_NEW') ids.push(info.workflowId);
    return ids;
  };

  beforeAll(async () => {
    stack = await startTestStack({
      account: ACCOUNT,
      countCalls: true,
      webhooks: ['CAMPAIGN', 'CAMPAIGN_SHARING'],
    });
    await stack.simulator.control.seed({ brands: 24, campaignsPerBrand: 3, seed: 19 });
    brands = await list<BrandRecord>('brand');
    campaigns = await list<CampaignRecord>('campaign');
  }, 120_000);

  afterAll(() => stack?.close());

  it('tcr import adopts brands and campaigns of every status: each in its phase, nothing written, no fee; parked events claimed', async () => {
    // An event before the import: no workflow owns the campaign, so the ingress parks it.
    const nudged = campaigns.find((c) => c.status === 'ACTIVE')!;
    await stack.simulator.control.nudgeCampaign(
      nudged.campaignId,
      'FIX_SAMPLES',
      'seeded campaign nudged before import',
    );
    await stack.simulator.control.waitForDelivery(
      (d) => d.eventType === 'CAMPAIGN_NUDGE' && d.outcome === 'DELIVERED',
      {
        timeoutMs: 30_000,
      },
    );
    const ledgerBefore = (await stack.simulator.control.ledger()).length;
    const callsBefore = stack.proxy(ACCOUNT).calls.length;

    const run = await tcr(
      ['import', '--account', ACCOUNT, '--records-per-page', '10', '--read-share', '0.5'],
      {
        client: stack.client,
      },
    );
    expect(run.stderr).toContain(`started import/${ACCOUNT}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `done: brands ${brands.length}/${brands.length} read, ${brands.length} adopted, 0 already owned`,
    );
    expect(run.stdout).toContain(
      `campaigns ${campaigns.length}/${campaigns.length} read, ${campaigns.length} adopted`,
    );

    const now = await stack.simulator.control.now();
    const brandPhases = new Set<string>();
    for (const b of brands) {
      const expected = expectedBrandPhase(b, now);
      brandPhases.add(expected);
      const status = await eventually(
        `brand ${b.brandId}`,
        () => brandStatus(b),
        (s) => s.phase === expected,
      );
      expect(status.brandId).toBe(b.brandId);
      expect(status.audit.entries.some((e) => e.event === 'adopted')).toBe(true);
    }
    // Adopted workflows run behind every other workflow's tasks (bulk key 5), the import's included.
    const adoptedBrand = stack.client.workflow.getHandle(
      brandWorkflowId(
        ACCOUNT,
        adoptedReference({ referenceId: brands[0]!.referenceId, registryId: brands[0]!.brandId }),
      ),
    );
    expect((await adoptedBrand.describe()).priority?.priorityKey).toBe(5);
    // The seed holds every brand phase an existing brand can be in.
    expect([...brandPhases]).toEqual(expect.arrayContaining(['deleted', 'needs-correction', 'ready']));
    // Each brand's vets at the registry are in its status, in the state the registry gives them; a vet
    // still in progress has a vet workflow following it (nothing ordered: no write, see below).
    const vetStates = new Set<string>();
    for (const b of brands.filter((x) => x.status === 'ACTIVE')) {
      const records = (await get(`/brand/${b.brandId}/externalVetting`)) as {
        vettingId: string;
        vettingStatus: string;
      }[];
      if (records.length === 0) continue;
      const status = await eventually(
        `brand ${b.brandId}'s vets`,
        () => brandStatus(b),
        (s) => s.vets.length === records.length,
      );
      for (const record of records) {
        const vet = status.vets.find((v) => v.vettingId === record.vettingId);
        expect(vet?.mode, `${b.brandId} ${record.vettingId}`).toBe('adopt');
        vetStates.add(record.vettingStatus);
        if (record.vettingStatus === 'PENDING' || record.vettingStatus === 'UNSCORE') {
          const child = stack.client.workflow.getHandle(vet!.workflowId);
          expect((await child.describe()).type).toBe('vetWorkflow');
          // The brand shows the deadline the vet workflow keeps (from the record's createDate), to
          // within the moments between the two workflows' starts (each reads its own workflow time).
          const progress = await child.query<{ deadline?: string }>('vetStatus');
          expect(Math.abs(Date.parse(vet!.deadline!) - Date.parse(progress.deadline!))).toBeLessThan(5_000);
        } else {
          expect(vet?.state).toBe(record.vettingStatus.toLowerCase());
        }
      }
    }
    expect(vetStates.size, 'the seed gives some brands vets').toBeGreaterThan(0);
    const campaignPhases = new Set<string>();
    const unshared: CampaignRecord[] = [];
    for (const c of campaigns) {
      const share = (await get(`/campaign/${c.campaignId}/sharing`)) as {
        sharedByMe: { sharingStatus: string; upstreamCnpId: string | null } | null;
      };
      const expected = expectedCampaignPhase(c, share.sharedByMe);
      campaignPhases.add(expected);
      const status = await eventually(
        `campaign ${c.campaignId}`,
        () => campaignStatus(c),
        (s) => s.phase === expected,
      );
      expect(status.campaignId).toBe(c.campaignId);
      if (expected === 'sharing') {
        expect(status.needsAction.map((a) => a.key)).toContain('share');
        unshared.push(c);
      }
    }
    expect([...campaignPhases]).toEqual(
      expect.arrayContaining([
        'awaiting-dca',
        'expired',
        'running',
        'share-declined',
        'share-pending',
        'sharing',
      ]),
    );

    // Reads only: the import read the lists, brands their vets, campaigns their share; no brand's record.
    const during = stack.proxy(ACCOUNT).calls.slice(callsBefore);
    expect(during.filter(isWrite)).toEqual([]);
    expect(during.filter((c) => /^\/v2\/brand\/[^/]+$/.test(c.path))).toEqual([]);
    expect((await stack.simulator.control.ledger()).length).toBe(ledgerBefore);

    // The event parked before the import reached the adopted workflow.
    const nudgedStatus = await eventually(
      'the parked nudge',
      () => campaignStatus(nudged),
      (s) => s.nudges.length > 0,
    );
    expect(nudgedStatus.nudges[0]!.nudgeIntent).toBe('FIX_SAMPLES');

    // An adopted campaign the registry showed unshared is shared elsewhere (another tool): its event
    // wakes the workflow, which reads the share, takes its partner and drops its needs-action.
    const target = unshared[0]!;
    expect((await stack.simulator.api('PUT', `/campaign/${target.campaignId}/sharing/SINCH`)).status).toBe(
      200,
    );
    const shared = await eventually(
      'the share seen',
      () => campaignStatus(target),
      // The simulator's partner decides at once: share-pending, or already on to awaiting-dca or running.
      (st) => st.upstreamCnpId === 'SINCH' && ['share-pending', 'awaiting-dca', 'running'].includes(st.phase),
    );
    expect(shared.needsAction.map((a) => a.key)).not.toContain('share');
  }, 240_000);

  it('an import again, or a page imported twice at once, starts nothing twice', async () => {
    const again = await tcr(
      ['import', '--account', ACCOUNT, '--records-per-page', '10', '--read-share', '0.5'],
      {
        client: stack.client,
      },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `brands ${brands.length}/${brands.length} read, 0 adopted, ${brands.length} already owned`,
    );

    // Ten more brands appear; one page holding them is imported by two attempts at once (a retried
    // attempt whose first try is still running, a crash between the starts and the completion).
    await stack.simulator.control.seed({ brands: 10, seed: 20 });
    const activities = createEstateActivities(registryResolver([stack.accounts[ACCOUNT]!]), {
      temporalClient: stack.client,
    });
    const page = { account: ACCOUNT, kind: 'brand' as const, page: 1, recordsPerPage: 500, dryRun: false };
    const [first, second] = await Promise.all([activities.importPage(page), activities.importPage(page)]);
    expect(first.adopted + second.adopted).toBe(10);
    brands = await list<BrandRecord>('brand');

    const ids = await eventually(
      'every workflow visible',
      executions,
      (found) => found.length >= brands.length + campaigns.length,
    );
    expect(ids.length).toBe(new Set(ids).size);
    expect(ids.length).toBe(brands.length + campaigns.length);
  }, 240_000);

  it('a sweep wakes only the campaign whose expiry webhook was lost, within its read share; tcr sweep shows it', async () => {
    // The ingress is down while the registry expires a running campaign: its webhook never arrives.
    await stack.ingress!.close();
    const target = campaigns.find(
      (c) =>
        c.status === 'ACTIVE' &&
        c.mnoOperationStatus &&
        Object.values(c.mnoOperationStatus).includes('REGISTERED'),
    )!;
    await eventually(
      'the campaign running',
      () => campaignStatus(target),
      (s) => s.phase === 'running',
    );
    await stack.simulator.control.expireCampaign(target.campaignId);
    expect((await campaignStatus(target)).phase).toBe('running');

    const paging = { recordsPerPage: 5, readShare: 0.1, readsPerSecond: 20 };
    const intervalMs = 1000 / (paging.readShare * paging.readsPerSecond);
    const callsBefore = stack.proxy(ACCOUNT).calls.length;
    const sweep = (await stack.client.workflow.execute(ESTATE_SWEEP_WORKFLOW_TYPE, {
      workflowId: `sweep/${ACCOUNT}-test`,
      taskQueue: stack.workflowTaskQueue,
      args: [{ account: ACCOUNT, paging } satisfies EstateSweepInput],
    })) as SweepStatus;

    expect(sweep.state).toBe('done');
    expect(sweep.counts.records).toBe(brands.length + campaigns.length);
    expect(sweep.counts.changed).toBe(1);
    expect(sweep.counts.unowned).toBe(0);
    expect(sweep.counts.unchanged + sweep.counts.closed + sweep.counts.changed).toBe(sweep.counts.records);
    const expired = await eventually(
      'the lost expiry noticed',
      () => campaignStatus(target),
      (s) => s.phase === 'expired',
    );
    expect(expired.audit.entries.some((e) => e.cause === 'sweep' && e.event === 'registry-changed')).toBe(
      true,
    );

    // Within its share: list reads one after another, at least an interval apart on average (two
    // intervals of slack for a first read that waited in the queue).
    const reads = stack
      .proxy(ACCOUNT)
      .calls.slice(callsBefore)
      .filter(
        (c) => (c.path === '/v2/brand' || c.path === '/v2/campaign') && c.query.includes('recordsPerPage=5'),
      );
    expect(reads.length).toBe(sweep.counts.pages);
    expect(reads.length).toBeGreaterThan(10);
    const spanMs = reads.at(-1)!.startMs - reads[0]!.startMs;
    expect(spanMs + 2 * intervalMs).toBeGreaterThanOrEqual((reads.length - 1) * intervalMs);

    // The operator's view: the Schedule, a sweep now, the latest sweep's line.
    expect(await ensureSweepSchedule(stack.client, { account: ACCOUNT, every: '1h' })).toBe('created');
    expect(await ensureSweepSchedule(stack.client, { account: ACCOUNT, every: '1h' })).toBe('unchanged');
    expect(await ensureSweepSchedule(stack.client, { account: ACCOUNT, every: '30m' })).toBe('updated');
    const none = await tcr(['sweep', '--account', 'nobody'], { client: stack.client });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('account nobody has no sweep Schedule sweep/nobody');
    const now = await tcr(['sweep', '--account', ACCOUNT, '--now'], { client: stack.client });
    expect(now.code, now.stderr).toBe(0);
    const shown = await eventually(
      'the scheduled sweep done',
      () => tcr(['sweep', '--account', ACCOUNT], { client: stack.client }),
      (r) => r.stdout.includes('latest sweep') && r.stdout.includes(': done'),
    );
    expect(shown.stdout).toContain(`Schedule sweep/${ACCOUNT}: every 1800s`);
    expect(shown.stdout).toMatch(/0 changed \(woken\), \d+ unchanged, 0 unowned/);

    // Workers set the Schedule as they start (TCR_SWEEP_*), with the account's read budget. (The
    // running ones stop first: one connection serves one worker per task queue.)
    await stack.workers!.shutdown();
    const starting = await createWorkers(
      {
        temporal: { address: 'unused (connection given)', namespace: 'default' },
        accounts: [stack.accounts[ACCOUNT]!],
        sweep: { every: '2h', readShare: 0.1, recordsPerPage: 500 },
      },
      { connection: stack.env.nativeConnection, workflowBundle: await workflowBundle(workflowsPath) },
    );
    await starting.shutdown();
    expect(starting.sweepSchedules).toEqual([{ account: ACCOUNT, outcome: 'updated', every: '2h' }]);
    const after = await tcr(['sweep', '--account', ACCOUNT, '--json'], { client: stack.client });
    expect(JSON.parse(after.stdout).schedule.every).toEqual(['7200s']);
  }, 240_000);
});
