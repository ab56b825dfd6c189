/**
 * Operator requests are validated at the edge: the typed API refuses a bad request with every field
 * named, before it sends anything, and sends the parsed request (schema defaults applied).
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  appealBrand,
  approveCampaignFee,
  cancelBrand,
  correctBrand,
  orderVet,
  RequestValidationError,
  resubmitCampaign,
  shareCampaignWith,
} from '../../src/index.js';
import { setOrderAccounts } from '../../src/orders/order-client.js';

/** A client that records the updates it is asked to send and answers each with `{}`. */
function recordingClient() {
  const sent: { workflowId: string; update: string; args: unknown[] }[] = [];
  const client = {
    workflow: {
      getHandle: (workflowId: string) => ({
        executeUpdate: async (update: { name: string }, options?: { args?: unknown[] }) => {
          sent.push({ workflowId, update: update.name, args: options?.args ?? [] });
          return {};
        },
      }),
    },
  } as unknown as Client;
  // One account: a bare reference is its.
  setOrderAccounts(client, ['local']);
  return { client, sent };
}

async function refusal(promise: Promise<unknown>): Promise<RequestValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestValidationError);
  return error as RequestValidationError;
}

describe('operator requests at the edge', () => {
  it('refuses a bad request with every field named and sends nothing', async () => {
    const { client, sent } = recordingClient();
    const bad = await refusal(
      correctBrand(client, 'acme', { patch: { email: 'not-an-email', phone: '555' } }),
    );
    expect(bad.errors.map((e) => e.path).sort()).toEqual(['patch.email', 'patch.phone']);
    expect(bad.message).toMatch(/^invalid correctBrand request: /);
    await refusal(appealBrand(client, 'acme', { appealCategories: [], explanation: '' }));
    await refusal(orderVet(client, 'acme', { evpId: 'AEGIS', vettingClass: 'GOLD' as never }));
    await refusal(cancelBrand(client, 'acme', ''));
    await refusal(approveCampaignFee(client, 'c1', { approvedBy: '' }));
    await refusal(resubmitCampaign(client, 'c1', { changes: {} }));
    await refusal(shareCampaignWith(client, 'c1', ''));
    expect(sent).toEqual([]);
  });

  it('sends the parsed request, defaults applied', async () => {
    const { client, sent } = recordingClient();
    await appealBrand(client, 'acme', {
      appealCategories: ['VERIFY_TAX_ID'],
      explanation: 'The EIN is right.',
    });
    await correctBrand(client, 'acme', { patch: { email: 'ops@acme.example' } });
    expect(sent).toEqual([
      {
        workflowId: 'brand/local/acme',
        update: 'appeal',
        args: [
          { appealCategories: ['VERIFY_TAX_ID'], attachmentUuids: [], explanation: 'The EIN is right.' },
        ],
      },
      {
        workflowId: 'brand/local/acme',
        update: 'correctBrand',
        args: [{ patch: { email: 'ops@acme.example' } }],
      },
    ]);
  });
});
