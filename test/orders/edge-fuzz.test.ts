/**
 * Property tests of the order and operator-request edge (issue 17), bounded for `npm test`
 * (FUZZ_RUNS raises the number of runs): whatever JSON arrives, parsing either succeeds or throws the
 * edge's validation error, never anything else; and a valid order or request with one unknown key
 * injected anywhere an object is expected is refused with an error naming that key.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appealBrand,
  approveCampaignFee,
  cancelBrand,
  correctBrand,
  importVet,
  orderVet,
  RequestValidationError,
  resubmitCampaign,
  shareCampaignWith,
} from '../../src/index.js';
import { OrderValidationError, parseBrandOrder } from '../../src/orders/brand-order.js';
import { CampaignOrderValidationError, parseCampaignOrder } from '../../src/orders/campaign-orders.js';
import { setOrderAccounts } from '../../src/orders/order-client.js';
import { BrandUpdateSchema, CampaignCreationSchema } from '../../src/registry/schemas.js';
import { projectRoot } from '../../src/toolchain/paths.js';

const numRuns = Number(process.env.FUZZ_RUNS ?? 200);
const readJson = (path: string) =>
  JSON.parse(readFileSync(join(projectRoot, path), 'utf8')) as Record<string, unknown>;
const validBrandOrder = readJson('examples/brands/acme-widgets.json');
const validCampaignOrder = readJson('examples/campaigns/acme-account-notifications.json');
const brandFields = Object.keys(BrandUpdateSchema.shape);
const campaignFields = Object.keys(CampaignCreationSchema.shape);

/** Throws whatever `parse` throws unless it is `type`; returns the field errors of a refusal. */
function outcome(
  parse: () => unknown,
  type: new (...args: never[]) => Error,
): { path: string }[] | 'accepted' {
  try {
    parse();
    return 'accepted';
  } catch (error) {
    if (error instanceof type) return (error as unknown as { errors: { path: string }[] }).errors;
    throw error;
  }
}

/** JSON objects shaped like an order's part: known field names and arbitrary names, arbitrary JSON values. */
const fieldsLike = (known: string[]) =>
  fc.dictionary(fc.oneof(fc.constantFrom(...known), fc.string()), fc.jsonValue({ maxDepth: 3 }), {
    maxKeys: 12,
  });

/** A key no schema knows: plain (escaping of hostile keys is tested in strict-edge.test.ts). */
const unknownKey = (known: string[]) =>
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,20}$/).filter((k) => !known.includes(k));

describe('order parsing under arbitrary JSON', () => {
  it('parseBrandOrder accepts or throws OrderValidationError, nothing else', () => {
    const orders = fc.oneof(
      fc.jsonValue(),
      fc.anything(),
      fc.record({ reference: fc.jsonValue(), account: fc.jsonValue(), brand: fieldsLike(brandFields) }),
      fieldsLike(brandFields).map((brand) => ({ ...validBrandOrder, brand })),
    );
    fc.assert(
      fc.property(orders, (order) => {
        outcome(() => parseBrandOrder(order), OrderValidationError);
      }),
      { numRuns },
    );
  });

  it('parseCampaignOrder accepts or throws CampaignOrderValidationError, nothing else', () => {
    const orders = fc.oneof(
      fc.jsonValue(),
      fc.anything(),
      fieldsLike(campaignFields).map((campaign) => ({ ...validCampaignOrder, campaign })),
    );
    fc.assert(
      fc.property(orders, (order) => {
        outcome(() => parseCampaignOrder(order), CampaignOrderValidationError);
      }),
      { numRuns },
    );
  });

  it('a valid brand order with one unknown key injected is refused, naming it', () => {
    const brand = validBrandOrder.brand as Record<string, unknown>;
    const places = fc.oneof(
      unknownKey(Object.keys(validBrandOrder)).map((key) => ({
        order: { ...validBrandOrder, [key]: 1 },
        path: key,
      })),
      unknownKey(brandFields).map((key) => ({
        order: { ...validBrandOrder, brand: { ...brand, [key]: 'x' } },
        path: `brand.${key}`,
      })),
    );
    fc.assert(
      fc.property(places, ({ order, path }) => {
        const errors = outcome(() => parseBrandOrder(order), OrderValidationError);
        expect(errors).not.toBe('accepted');
        expect((errors as { path: string }[]).map((e) => e.path)).toEqual([path]);
      }),
      { numRuns },
    );
  });

  it('a valid campaign order with one unknown key injected is refused, naming it', () => {
    const campaign = validCampaignOrder.campaign as Record<string, unknown>;
    const places = fc.oneof(
      unknownKey([...Object.keys(validCampaignOrder), 'requireFeeApproval']).map((key) => ({
        order: { ...validCampaignOrder, [key]: true },
        path: key,
      })),
      unknownKey(campaignFields).map((key) => ({
        order: { ...validCampaignOrder, campaign: { ...campaign, [key]: [] } },
        path: `campaign.${key}`,
      })),
    );
    fc.assert(
      fc.property(places, ({ order, path }) => {
        const errors = outcome(() => parseCampaignOrder(order), CampaignOrderValidationError);
        expect(errors).not.toBe('accepted');
        expect((errors as { path: string }[]).map((e) => e.path)).toEqual([path]);
      }),
      { numRuns },
    );
  });
});

/** A client that answers every update with `{}`. */
const client = {
  workflow: { getHandle: () => ({ executeUpdate: async () => ({}) }) },
} as unknown as Client;
// One account: a bare reference is its.
setOrderAccounts(client, ['local']);

/** Each request of the typed API, called with an arbitrary value where the request goes. */
const requests: [string, (value: never) => Promise<unknown>, Record<string, unknown> | string][] = [
  [
    'correctBrand',
    (v) => correctBrand(client, 'r', v),
    { patch: { email: 'ops@acme.example' }, revet: true },
  ],
  [
    'appeal',
    (v) => appealBrand(client, 'r', v),
    { appealCategories: ['VERIFY_TAX_ID'], attachmentUuids: ['a'], explanation: 'e' },
  ],
  ['orderVet', (v) => orderVet(client, 'r', v), { evpId: 'AEGIS', vettingClass: 'STANDARD' }],
  ['importVet', (v) => importVet(client, 'r', v), { evpId: 'AEGIS', vettingId: 'v1', vettingToken: 't' }],
  ['approveFee', (v) => approveCampaignFee(client, 'c', v), { approvedBy: 'ops', maxMonthlyFee: 3 }],
  ['resubmit', (v) => resubmitCampaign(client, 'c', v), { changes: { description: 'd', tag: ['t'] } }],
  ['cancel', (v) => cancelBrand(client, 'r', v), 'order withdrawn'],
  ['shareWith', (v) => shareCampaignWith(client, 'c', v), 'SINCH'],
];

async function requestOutcome(send: () => Promise<unknown>): Promise<{ path: string }[] | 'accepted'> {
  try {
    await send();
    return 'accepted';
  } catch (error) {
    if (error instanceof RequestValidationError) return error.errors;
    throw error;
  }
}

describe('operator requests under arbitrary JSON', () => {
  it('every request parser accepts or throws RequestValidationError, nothing else', async () => {
    for (const [name, send, valid] of requests) {
      const values = fc.oneof(
        fc.jsonValue(),
        fc.anything(),
        fieldsLike([...Object.keys(valid), ...brandFields]).map((fields) => ({
          ...(valid as object),
          ...fields,
        })),
        fieldsLike(brandFields).map((patch) => ({ patch })),
        fieldsLike(campaignFields).map((changes) => ({ changes })),
      );
      await fc.assert(
        fc.asyncProperty(values, async (value) => {
          await requestOutcome(() => send(value as never));
        }),
        { numRuns: Math.ceil(numRuns / 2), examples: [[valid]] },
      );
      expect(await requestOutcome(() => send(valid as never)), name).toBe('accepted');
    }
  });

  it('a valid request with one unknown key injected is refused, naming it', async () => {
    for (const [name, send, valid] of requests) {
      if (typeof valid === 'string') continue; // the wrapper builds the request object itself
      const nested = name === 'correctBrand' ? 'patch' : name === 'resubmit' ? 'changes' : undefined;
      const places = fc.oneof(
        unknownKey(Object.keys(valid)).map((key) => ({ value: { ...valid, [key]: 1 }, path: key })),
        ...(nested
          ? [
              unknownKey(nested === 'patch' ? brandFields : campaignFields).map((key) => ({
                value: { ...valid, [nested]: { ...(valid[nested] as object), [key]: 'x' } },
                path: `${nested}.${key}`,
              })),
            ]
          : []),
      );
      await fc.assert(
        fc.asyncProperty(places, async ({ value, path }) => {
          const errors = await requestOutcome(() => send(value as never));
          expect(errors, name).not.toBe('accepted');
          expect((errors as { path: string }[]).map((e) => e.path)).toEqual([path]);
        }),
        { numRuns: Math.ceil(numRuns / 4) },
      );
    }
  });
});
