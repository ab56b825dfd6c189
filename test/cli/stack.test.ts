/**
 * The CLI against a real stack: the Temporal dev server (visibility, search attributes), the
 * simulator, and the product's workers (createWorkers, real registry activities). Commands run
 * in-process through runCli; one of them connects from TEMPORAL_ADDRESS like the executable does.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { type RegistryEventDelivery, registryEventSignal } from '../../src/contracts/signals.js';
import { WORKFLOW_TASK_QUEUE } from '../../src/contracts/task-queues.js';
import { IngressMetrics } from '../../src/ingress/metrics.js';
import { waitForBrandPhase } from '../../src/orders/brand-client.js';
import { waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import { DEFAULT_ACCOUNT, type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { createWorkers, type RunningWorkers } from '../../src/workers/create-workers.js';
import type { parkedEvents } from '../../src/workflows/parked-events.js';
import { qualifyingCampaign } from '../fixtures/campaign-env.js';
import { devServerEnv, workflowBundle } from '../support/temporal-env.js';
import { brandOrder, tcr, tempDir, writeJson } from './support.js';

const workflowsPath = fileURLToPath(new URL('../../src/workflows/index.ts', import.meta.url));
const ACCOUNT = 'local';

let env: TestWorkflowEnvironment;
let sim: RunningSimulator;
let workers: RunningWorkers;
let running: Promise<void>;
let metricsServer: Server | undefined;

beforeAll(async () => {
  env = await devServerEnv();
  sim = await startSimulator({ rateLimits: false });
  workers = await createWorkers(
    {
      temporal: { address: env.address, namespace: 'default' },
      accounts: [
        {
          name: ACCOUNT,
          environment: 'local',
          baseUrl: sim.url,
          apiKey: DEFAULT_ACCOUNT.apiKey,
          apiSecret: DEFAULT_ACCOUNT.apiSecret,
        },
      ],
    },
    { connection: env.nativeConnection, workflowBundle: await workflowBundle(workflowsPath) },
  );
  running = workers.run();
});

afterAll(async () => {
  metricsServer?.close();
  await workers?.shutdown();
  await running?.catch(() => undefined);
  await sim?.close();
  await env?.teardown();
});

/** Visibility is eventually consistent: repeat `tcr list` until `predicate` holds. */
async function listUntil(
  argv: string[],
  predicate: (rows: { workflowId: string; phase: string | null }[]) => boolean,
) {
  let rows: { workflowId: string; phase: string | null }[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const run = await tcr(['list', '--json', ...argv], { client: env.client });
    expect(run.code).toBe(0);
    rows = JSON.parse(run.stdout);
    if (predicate(rows)) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`list ${argv.join(' ')} never matched: ${JSON.stringify(rows)}`);
}

describe('tcr against the dev server, the simulator and the workers', () => {
  const dir = tempDir();

  it('registers a brand from a file, then shows it in status and list', async () => {
    const reference = `acme-${randomUUID().slice(0, 8)}`;
    const file = writeJson(dir, `${reference}.json`, brandOrder(reference, ACCOUNT));

    const registered = await tcr(['brand', 'register', file, '--json'], { client: env.client });
    expect(registered.code, registered.stderr).toBe(0);
    const started = JSON.parse(registered.stdout);
    expect(started).toMatchObject({ workflowId: `brand/${ACCOUNT}/${reference}`, started: true });
    expect(started.runId).toEqual(expect.any(String));
    expect(started.status).toMatchObject({ workflowType: 'brand', reference, account: ACCOUNT });

    const ready = await waitForBrandPhase(env.client, reference, 'ready', 30_000);
    expect(ready.brandId).toEqual(expect.any(String));

    // A bare reference of the account TCR_ACCOUNT names, connecting from the environment like the executable.
    const text = await tcr(['status', reference], {
      env: { TEMPORAL_ADDRESS: env.address, TCR_ACCOUNT: ACCOUNT },
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`brand/${ACCOUNT}/${reference}  phase ready`);
    expect(text.stdout).toContain(ready.brandId!);
    expect(text.stdout).toMatch(/Needs action: no/);
    expect(text.stdout).toMatch(/Audit \(last \d+/);

    const json = await tcr(['status', `brand/${ACCOUNT}/${reference}`, '--json'], { client: env.client });
    expect(json.code).toBe(0);
    const status = JSON.parse(json.stdout) as BrandStatus;
    expect(status).toMatchObject({ reference, phase: 'ready', brandId: ready.brandId });

    const rows = await listUntil(['--kind', 'brand', '--phase', 'ready'], (r) =>
      r.some((w) => w.workflowId === `brand/${ACCOUNT}/${reference}`),
    );
    expect(rows.find((w) => w.workflowId === `brand/${ACCOUNT}/${reference}`)).toMatchObject({
      phase: 'ready',
      needsAction: false,
      registryId: ready.brandId,
      account: ACCOUNT,
      executionStatus: 'RUNNING',
    });
    const table = await tcr(['list', '--kind', 'brand', '--no-status'], { client: env.client });
    expect(table.stdout).toMatch(/^WORKFLOW\s+PHASE\s+ACTION\s+REGISTRY ID\s+STATE\s+LAST UPDATE/);
    expect(table.stdout).toMatch(
      new RegExp(`^brand/${ACCOUNT}/${reference}\\s+ready\\s+-\\s+${ready.brandId}\\s+RUNNING`, 'm'),
    );
    const needing = await tcr(['list', '--needs-action', '--json'], { client: env.client });
    expect(JSON.parse(needing.stdout).map((w: { workflowId: string }) => w.workflowId)).not.toContain(
      `brand/${ACCOUNT}/${reference}`,
    );

    // Operator actions go through the workflow's updates and print the resulting status.
    const corrected = await tcr(
      ['brand', 'correct', reference, '--set', 'website=https://acme2.example', '--json'],
      {
        client: env.client,
      },
    );
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(JSON.parse(corrected.stdout)).toMatchObject({
      workflowId: `brand/${ACCOUNT}/${reference}`,
      action: 'corrected',
    });
    const vet = await tcr(['vet', 'order', reference, '--evp', 'AEGIS', '--class', 'STANDARD'], {
      client: env.client,
    });
    expect(vet.code, vet.stderr).toBe(0);
    expect(vet.stdout).toMatch(
      new RegExp(
        `^vet ordered: done, phase ready, vetSeq 1, vetWorkflowId brand/${ACCOUNT}/${reference}/vet/AEGIS/1-[0-9a-f]{8}$`,
      ),
    );
    const withVet = JSON.parse((await tcr(['status', reference, '--json'], { client: env.client })).stdout);
    expect(withVet.vets).toEqual([
      expect.objectContaining({ mode: 'order', evpId: 'AEGIS', vettingClass: 'STANDARD' }),
    ]);
    expect((await tcr(['status', reference], { client: env.client })).stdout).toMatch(
      /Vets:\n\s+SEQ\s+MODE\s+EVP/,
    );

    // Registering the same order again starts nothing and shows the existing workflow.
    const again = await tcr(['brand', 'register', file], { client: env.client });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('exists already');

    const cancelled = await tcr(['brand', 'cancel', reference, '--reason', 'test done', '--json'], {
      client: env.client,
    });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ outcome: 'done', phase: 'cancelled' });
    const after = JSON.parse((await tcr(['status', reference, '--json'], { client: env.client })).stdout);
    expect(after).toMatchObject({ phase: 'cancelled', cancelReason: 'test done' });
  });

  it('creates a campaign from a file, approves its fee and shows it in list and status', async () => {
    const brandRef = `globex-${randomUUID().slice(0, 8)}`;
    const reference = `${brandRef}-alerts`;
    expect(
      (
        await tcr(['brand', 'register', writeJson(dir, `${brandRef}.json`, brandOrder(brandRef, ACCOUNT))], {
          client: env.client,
        })
      ).code,
    ).toBe(0);
    // The campaign polls its brand (1 min at first): start it once the brand is ready, to keep the test fast.
    await waitForBrandPhase(env.client, brandRef, 'ready', 30_000);
    const file = writeJson(dir, `${reference}.json`, {
      reference,
      account: ACCOUNT,
      brandReference: brandRef,
      upstreamCnpId: 'SINCH',
      requireFeeApproval: true,
      campaign: qualifyingCampaign({
        description: 'Account balance and payment reminders for Globex customers',
        sample1: 'Globex: your balance is $12.30. Reply STOP to opt out.',
        sample2: 'Globex: payment received, thank you. Reply HELP for help.',
        messageFlow: 'Customers opt in on the account settings page at https://globex.example/settings',
        helpMessage: 'Globex: help at https://globex.example/help',
      }),
    });
    const created = await tcr(['campaign', 'create', file], { client: env.client });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`started campaign/${ACCOUNT}/${reference}`);

    await waitForCampaignPhase(env.client, reference, 'awaiting-fee-approval', 30_000);
    const needing = await listUntil(['--needs-action', '--kind', 'campaign'], (r) =>
      r.some((w) => w.workflowId === `campaign/${ACCOUNT}/${reference}`),
    );
    expect(needing.find((w) => w.workflowId === `campaign/${ACCOUNT}/${reference}`)?.phase).toBe(
      'awaiting-fee-approval',
    );
    const waiting = await tcr(['status', reference], { client: env.client });
    expect(waiting.stdout).toContain(`campaign/${ACCOUNT}/${reference}  phase awaiting-fee-approval`);
    expect(waiting.stdout).toMatch(/Needs action \(1\):/);

    const approved = await tcr(['campaign', 'approve-fee', reference, '--by', 'tester', '--json'], {
      client: env.client,
    });
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({
      workflowId: `campaign/${ACCOUNT}/${reference}`,
      action: 'fee approved',
      outcome: 'done',
      ids: { campaignId: expect.any(String) },
    });
    const afterApproval = JSON.parse(
      (await tcr(['status', reference, '--json'], { client: env.client })).stdout,
    );
    expect(afterApproval.feeApprovedBy).toBe('tester');
    const shared = await waitForCampaignPhase(
      env.client,
      reference,
      ['share-pending', 'awaiting-dca', 'running'],
      30_000,
    );
    expect(shared.campaignId).toEqual(expect.any(String));
    const text = await tcr(['status', `campaign/${ACCOUNT}/${reference}`], { client: env.client });
    expect(text.stdout).toContain(shared.campaignId!);
    expect(text.stdout).toMatch(/MNOs:\n\s+MNO\s+NAME\s+QUALIFY/);
    expect(text.stdout).toContain('Sharing: SINCH');

    const cancel = await tcr(['campaign', 'cancel', reference, '--reason', 'test done'], {
      client: env.client,
    });
    // A share is PENDING: the workflow refuses, and its reason reaches the operator (exit 1).
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toContain(`campaign/${ACCOUNT}/${reference}: cancel refused: `);
    expect(cancel.stderr).toContain('PENDING');
    expect(
      (await tcr(['brand', 'cancel', brandRef, '--reason', 'test done'], { client: env.client })).code,
    ).toBe(0);
  });

  it('operator actions as typed: outcomes printed, a refused operation exits 1 in the workflow words, cancel clicked twice cancels once', async () => {
    const reference = `fix-${randomUUID().slice(0, 8)}`;
    const file = writeJson(
      dir,
      `${reference}.json`,
      brandOrder(reference, ACCOUNT, { companyName: 'Acme UNVERIFIED Widgets Inc' }),
    );
    expect((await tcr(['brand', 'register', file], { client: env.client })).code).toBe(0);
    await waitForBrandPhase(env.client, reference, 'needs-correction', 30_000);

    // A revet the registry answers UNVERIFIED again: done, and the phase says so.
    const revet = await tcr(['brand', 'revet', reference], { client: env.client });
    expect(revet.code, revet.stderr).toBe(0);
    expect(revet.stdout).toMatch(/^revet requested: done, phase needs-correction/);

    // A correction the order API refuses before anything is sent (no field it knows): exit 3.
    const invalid = await tcr(['brand', 'correct', reference, '--set', 'nosuchfield=1'], {
      client: env.client,
    });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toMatch(/patch: an update needs at least one field/);

    const corrected = await tcr(
      ['brand', 'correct', reference, '--set', 'companyName=Acme Widgets Inc', '--revet', '--json'],
      { client: env.client },
    );
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(JSON.parse(corrected.stdout)).toMatchObject({
      workflowId: `brand/${ACCOUNT}/${reference}`,
      action: 'corrected',
      outcome: 'done',
      phase: 'ready',
    });

    // A revet of a VERIFIED brand: the workflow's validator refuses it in its words, exit 1.
    const again = await tcr(['brand', 'revet', reference], { client: env.client });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `tcr: brand/${ACCOUNT}/${reference}: revet refused: revet applies to UNVERIFIED brands; this brand is VERIFIED`,
    );

    // Two operators click cancel at once: the brand is cancelled once, and the second click, queued
    // behind the first, is answered with the first one's outcome (issue 34: once each).
    const [a, b] = await Promise.all([
      tcr(['brand', 'cancel', reference, '--reason', 'operator one'], { client: env.client }),
      tcr(['brand', 'cancel', reference, '--reason', 'operator two'], { client: env.client }),
    ]);
    // (A click that reaches Temporal after the workflow has closed is told so instead.)
    expect([a.code, b.code]).toContain(0);
    const [first, second] = a.code === 0 ? [a, b] : [b, a];
    expect(first.stdout).toMatch(/^cancelled: done, phase cancelled/);
    if (second.code === 0) expect(second.stdout).toBe(first.stdout);
    else expect(`${second.stdout}${second.stderr}`).toMatch(/cancelled|completed|closed/i);
    const status = await tcr(['status', reference, '--json'], { client: env.client });
    const final = JSON.parse(status.stdout) as BrandStatus;
    expect(final.phase).toBe('cancelled');
    expect(final.audit.entries.filter((e) => e.event === 'phase' && e.to === 'cancelled')).toHaveLength(1);
  });

  it('an invalid order file exits 3 with every field error and starts no workflow', async () => {
    const reference = `bad-${randomUUID().slice(0, 8)}`;
    const file = writeJson(
      dir,
      'bad.json',
      brandOrder(reference, ACCOUNT, { email: 'nope', country: 'USA' }),
    );
    const run = await tcr(['brand', 'register', file], { client: env.client });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('  brand.email: ');
    expect(run.stderr).toContain('  brand.country: ');
    await expect(env.client.workflow.getHandle(`brand/${ACCOUNT}/${reference}`).describe()).rejects.toThrow(
      /not found/i,
    );
  });

  it('exits 4 for unknown workflows', async () => {
    const status = await tcr(['status', 'no-such-thing'], { client: env.client });
    expect(status.code).toBe(4);
    expect(status.stderr).toContain('no-such-thing');
    const revet = await tcr(['brand', 'revet', 'no-such-brand'], { client: env.client });
    expect(revet.code).toBe(4);
    const share = await tcr(['campaign', 'share', 'no-such-campaign', '--partner', 'CNP1'], {
      client: env.client,
    });
    expect(share.code).toBe(4);
  });

  it('events tail shows parked events and the ingress counters', async () => {
    const brandId = `B${randomUUID().slice(0, 6).toUpperCase()}`;
    const deliveryId = randomUUID().replaceAll('-', '');
    await env.client.workflow.signalWithStart<typeof parkedEvents, [RegistryEventDelivery]>('parkedEvents', {
      workflowId: `parked/brand/${brandId}`,
      taskQueue: WORKFLOW_TASK_QUEUE,
      args: [{ kind: 'brand', keyType: 'registryId', key: brandId }],
      signal: registryEventSignal,
      signalArgs: [
        {
          event: { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId, brandIdentityStatus: 'VERIFIED' },
          receivedAt: new Date().toISOString(),
          deliveryId,
        },
      ],
    });
    const metrics = new IngressMetrics();
    metrics.eventReceived();
    metrics.eventVerified();
    metrics.eventParked('brand', 'registry_id');
    metricsServer = createServer((_req, res) => res.end(metrics.render()));
    await new Promise<void>((resolve) => metricsServer!.listen(0, '127.0.0.1', resolve));
    const ingress = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;

    let parsed: {
      parked: { deliveryId: string; parkedIn: string; event: { eventType: string } }[];
      counters: Record<string, number>;
    } = {
      parked: [],
      counters: {},
    };
    for (
      let attempt = 0;
      attempt < 100 && !parsed.parked.some((d) => d.deliveryId === deliveryId);
      attempt++
    ) {
      const run = await tcr(['events', 'tail', '--json', '--ingress', ingress], { client: env.client });
      expect(run.code, run.stderr).toBe(0);
      parsed = JSON.parse(run.stdout);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(parsed.parked.find((d) => d.deliveryId === deliveryId)).toMatchObject({
      parkedIn: `parked/brand/${brandId}`,
      event: { eventType: 'BRAND_IDENTITY_STATUS_UPDATE' },
    });
    expect(parsed.counters.tcr_ingress_events_received_total).toBe(1);
    expect(parsed.counters['tcr_ingress_events_parked_total{target="brand",via="registry_id"}']).toBe(1);

    const text = await tcr(['status', `parked/brand/${brandId}`], { client: env.client });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('BRAND_IDENTITY_STATUS_UPDATE');

    // --follow prints what is there, then stops when told to.
    const stop = new AbortController();
    const following = tcr(['events', 'tail', '--follow', '--interval', '1', '--ingress', ingress], {
      client: env.client,
      signal: stop.signal,
    });
    setTimeout(() => stop.abort(), 1_500);
    const followed = await following;
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain(`parked/brand/${brandId}`);
    expect(followed.stdout).toContain('counter tcr_ingress_events_received_total = 1');
  });
});
