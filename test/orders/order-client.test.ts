/**
 * The brand and campaign order clients (src/orders/brand-client.ts, campaign-orders.ts) against a
 * recording Temporal client, no server: what a start sends (workflow type and id, task queue, input,
 * id policies, search attributes), an existing workflow returned with started false, and each steering
 * call parsing its request with the strict schema before it sends the update (a bad request sends
 * nothing and rejects with every field).
 */
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  appealBrand,
  brandHandle,
  cancelBrand,
  correctBrand,
  getBrandStatus,
  importVet,
  orderVet,
  revetBrand,
  startBrandOrder,
} from '../../src/orders/brand-client.js';
import {
  acknowledgeCampaignAction,
  approveCampaignFee,
  campaignHandle,
  cancelCampaign,
  getCampaignStatus,
  resubmitCampaign,
  shareCampaignWith,
  startCampaignOrder,
} from '../../src/orders/campaign-orders.js';
import { RequestValidationError } from '../../src/orders/operator-requests.js';
import { setOrderAccounts } from '../../src/orders/order-client.js';
import { brandOrder } from '../cli/support.js';

interface Recorded {
  starts: { workflowType: string; options: Record<string, unknown> }[];
  calls: string[];
}

/** Records starts, updates and queries; a start of an id in `existing` fails as already started. */
function recordingClient(existing: string[] = []): { client: Client; recorded: Recorded } {
  const recorded: Recorded = { starts: [], calls: [] };
  const handle = (workflowId: string) => ({
    workflowId,
    async executeUpdate(definition: { name: string }, options?: { args?: unknown[] }) {
      recorded.calls.push(`${workflowId} update ${definition.name} ${JSON.stringify(options?.args)}`);
      return { id: 1, operation: definition.name, outcome: 'done', phase: 'x' };
    },
    async query(definition: { name: string }) {
      recorded.calls.push(`${workflowId} query ${definition.name}`);
      return { phase: 'x' };
    },
    // No workflow of an earlier release (legacy id) exists here.
    async describe(): Promise<never> {
      throw new WorkflowNotFoundError('not found', workflowId, undefined);
    },
  });
  const client = {
    workflow: {
      async start(workflowType: string, options: Record<string, unknown>) {
        recorded.starts.push({ workflowType, options });
        const workflowId = options.workflowId as string;
        if (existing.includes(workflowId))
          throw new WorkflowExecutionAlreadyStartedError('exists', workflowId, workflowType);
        return { ...handle(workflowId), started: 'fresh' };
      },
      getHandle: (workflowId: string) => handle(workflowId),
    },
    // Status reads carry a deadline (the real client's: here the call runs as it is).
    withDeadline: <R>(_deadline: number, fn: () => Promise<R>) => fn(),
  } as unknown as Client;
  return { client, recorded };
}

/** The search attributes of a start as name → values. */
function attributesOf(options: Record<string, unknown>): Record<string, unknown> {
  const typed = options.typedSearchAttributes as {
    getAll(): { key: { name: string }; value: unknown }[];
  };
  return Object.fromEntries(typed.getAll().map((p) => [p.key.name, p.value]));
}

const campaignOrder = {
  reference: 'camp-1',
  account: 'local',
  brandReference: 'acme-1',
  upstreamCnpId: 'SFHGR',
  campaign: {
    usecase: 'ACCOUNT_NOTIFICATION',
    description: 'Account notifications for customers of Acme, sent when their account changes.',
    messageFlow: 'Customers opt in on the account settings page of the Acme website, by a checkbox.',
    sample1: 'Acme: your password was changed. Reply STOP to opt out.',
    sample2: 'Acme: a new device signed in to your account. Reply STOP to opt out.',
    subscriberOptin: true,
    subscriberOptout: true,
    subscriberHelp: true,
    embeddedLink: false,
    embeddedPhone: false,
    numberPool: false,
    ageGated: false,
    directLending: false,
    termsAndConditions: true,
    optinKeywords: 'START',
    optoutKeywords: 'STOP',
    helpKeywords: 'HELP',
    optinMessage: 'Acme: you are subscribed to account alerts. Reply STOP to opt out, HELP for help.',
    optoutMessage: 'Acme: you are unsubscribed from account alerts and will get no more messages.',
    helpMessage: 'Acme account alerts: reply STOP to opt out. Contact support@acme.example.',
  },
};

describe('starting orders', () => {
  it('starts brand/{account}/{reference} on the workflow queue, once per reference, with its search attributes', async () => {
    const { client, recorded } = recordingClient();
    const started = await startBrandOrder(client, brandOrder('acme-1', 'local'), { taskQueue: 'q1' });
    expect(started.started).toBe(true);
    expect(started.order.reference).toBe('acme-1');
    expect(started.handle.workflowId).toBe('brand/local/acme-1');
    const [start] = recorded.starts;
    expect(start!.workflowType).toBe('brandWorkflow');
    expect(start!.options).toMatchObject({
      workflowId: 'brand/local/acme-1',
      taskQueue: 'q1',
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
    const [input] = start!.options.args as Record<string, unknown>[];
    expect(Object.keys(input!).sort()).toEqual(['account', 'reference', 'registration']);
    expect(attributesOf(start!.options)).toEqual({
      TcrBrandReference: 'acme-1',
      TcrAccount: 'local',
      TcrPhase: 'registering',
    });
    await startBrandOrder(client, brandOrder('acme-2', 'local'), {
      workflowOptions: { maxRegistryWaitMs: 1 } as never,
    });
    expect(recorded.starts[1]!.options.taskQueue).toBe('tcr-workflows');
    expect((recorded.starts[1]!.options.args as Record<string, unknown>[])[0]!.options).toEqual({
      maxRegistryWaitMs: 1,
    });
  });

  it('starts campaign/{account}/{reference} with the order, the brand reference as search attribute', async () => {
    const { client, recorded } = recordingClient();
    const started = await startCampaignOrder(client, campaignOrder);
    expect(started.started).toBe(true);
    expect(started.order.requireFeeApproval).toBe(false);
    const [start] = recorded.starts;
    expect(start!.workflowType).toBe('campaignWorkflow');
    expect(start!.options).toMatchObject({
      workflowId: 'campaign/local/camp-1',
      taskQueue: 'tcr-workflows',
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
    const [input] = start!.options.args as Record<string, unknown>[];
    expect(input).toEqual({
      reference: 'camp-1',
      account: 'local',
      brandReference: 'acme-1',
      upstreamCnpId: 'SFHGR',
      requireFeeApproval: false,
      campaign: started.order.campaign,
    });
    expect(attributesOf(start!.options)).toEqual({
      TcrBrandReference: 'acme-1',
      TcrAccount: 'local',
      TcrPhase: 'awaiting-brand',
    });
  });

  it('returns the existing workflow, started false, when the id is taken', async () => {
    const { client } = recordingClient(['brand/local/acme-1', 'campaign/local/camp-1']);
    const brand = await startBrandOrder(client, brandOrder('acme-1', 'local'));
    expect(brand.started).toBe(false);
    expect(brand.handle.workflowId).toBe('brand/local/acme-1');
    expect(brand.handle).not.toHaveProperty('started');
    const campaign = await startCampaignOrder(client, campaignOrder);
    expect(campaign.started).toBe(false);
    expect(campaign.handle.workflowId).toBe('campaign/local/camp-1');
  });

  it('refuses a bad order before starting anything', async () => {
    const { client, recorded } = recordingClient();
    await expect(startBrandOrder(client, { reference: 'x' })).rejects.toThrow(/invalid/);
    await expect(startCampaignOrder(client, { reference: 'x' })).rejects.toThrow(/invalid/);
    expect(recorded.starts).toEqual([]);
  });
});

describe('steering and reading', () => {
  it('sends each update to its workflow with the parsed request, and queries the status', async () => {
    const { client, recorded } = recordingClient();
    // One account: a bare reference is that account's.
    setOrderAccounts(client, ['local']);
    expect(brandHandle(client, 'acme').workflowId).toBe('brand/local/acme');
    expect(brandHandle(client, { account: 'other', reference: 'acme' }).workflowId).toBe('brand/other/acme');
    expect(campaignHandle(client, 'camp').workflowId).toBe('campaign/local/camp');
    await correctBrand(client, 'acme', { patch: { email: 'a@b.co' } });
    await revetBrand(client, 'acme');
    await appealBrand(client, 'acme', {
      appealCategories: ['VERIFY_TAX_ID'],
      attachmentUuids: [],
      explanation: 'wrong',
    });
    await orderVet(client, 'acme', { evpId: 'AEGIS', vettingClass: 'STANDARD' });
    await importVet(client, 'acme', { evpId: 'AEGIS', vettingId: 'v1' });
    await cancelBrand(client, 'acme', 'gone');
    await getBrandStatus(client, 'acme');
    await approveCampaignFee(client, 'camp', { approvedBy: 'alice' });
    await resubmitCampaign(client, 'camp', { changes: { description: 'x'.repeat(40) } });
    await shareCampaignWith(client, 'camp', 'SFHGR');
    await cancelCampaign(client, 'camp', 'gone');
    await acknowledgeCampaignAction(client, 'camp', 'k1');
    await getCampaignStatus(client, 'camp');
    expect(recorded.calls).toEqual([
      'brand/local/acme update correctBrand [{"patch":{"email":"a@b.co"}}]',
      'brand/local/acme update revet undefined',
      'brand/local/acme update appeal [{"appealCategories":["VERIFY_TAX_ID"],"attachmentUuids":[],"explanation":"wrong"}]',
      'brand/local/acme update orderVet [{"evpId":"AEGIS","vettingClass":"STANDARD"}]',
      'brand/local/acme update importVet [{"evpId":"AEGIS","vettingId":"v1"}]',
      'brand/local/acme update cancel [{"reason":"gone"}]',
      'brand/local/acme query status',
      'campaign/local/camp update approveFee [{"approvedBy":"alice"}]',
      `campaign/local/camp update resubmit [{"changes":{"description":"${'x'.repeat(40)}"}}]`,
      'campaign/local/camp update shareWith [{"upstreamCnpId":"SFHGR"}]',
      'campaign/local/camp update cancel [{"reason":"gone"}]',
      'campaign/local/camp update acknowledge [{"key":"k1"}]',
      'campaign/local/camp query status',
    ]);
  });

  it('a bad request rejects naming the request and its fields, and sends nothing', async () => {
    const { client, recorded } = recordingClient();
    const refusals = [
      correctBrand(client, 'acme', { patch: { email: 'nope' } }),
      orderVet(client, 'acme', { evpId: 'AEGIS', vettingClass: 'PLATINUM' as never }),
      cancelBrand(client, 'acme', ''),
      shareCampaignWith(client, 'camp', ''),
      resubmitCampaign(client, 'camp', { changes: { bogus: 1 } as never }),
    ];
    const errors = await Promise.all(
      refusals.map((p) =>
        p.then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    for (const error of errors) expect(error).toBeInstanceOf(RequestValidationError);
    expect((errors as RequestValidationError[]).map((e) => e.request)).toEqual([
      'correctBrand request',
      'vet order',
      'cancel request',
      'shareWith request',
      'resubmit request',
    ]);
    expect(recorded.calls).toEqual([]);
  });
});
