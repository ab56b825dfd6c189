/**
 * Hostile orders and operator requests at the edge (issue 17): unknown fields are refused, each
 * named with its path, and every array and record is capped, so a misspelled optional field is never
 * dropped without a word and a 10,000-entry list never reaches a workflow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  appealBrand,
  approveCampaignFee,
  correctBrand,
  importVet,
  orderVet,
  RequestValidationError,
  resubmitCampaign,
} from '../../src/index.js';
import { OrderValidationError, parseBrandOrder } from '../../src/orders/brand-order.js';
import { CampaignOrderValidationError, parseCampaignOrder } from '../../src/orders/campaign-orders.js';
import type { FieldError } from '../../src/registry/field-errors.js';
import { REQUEST_LIMITS } from '../../src/registry/request-limits.js';
import { projectRoot } from '../../src/toolchain/paths.js';

const readJson = (path: string) =>
  JSON.parse(readFileSync(join(projectRoot, path), 'utf8')) as Record<string, unknown>;
const brandOrder = () => readJson('examples/brands/acme-widgets.json') as { brand: Record<string, unknown> };
const campaignOrder = () =>
  readJson('examples/campaigns/acme-account-notifications.json') as { campaign: Record<string, unknown> };

function refused(parse: () => unknown, type: new (...args: never[]) => Error): FieldError[] {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return (error as { errors: FieldError[] }).errors;
  }
  throw new Error('accepted');
}
const brandErrors = (order: unknown) => refused(() => parseBrandOrder(order), OrderValidationError);
const campaignErrors = (order: unknown) =>
  refused(() => parseCampaignOrder(order), CampaignOrderValidationError);
const messageAt = (errors: FieldError[], path: string) => errors.find((e) => e.path === path)?.message;

/** A client that records the updates it is asked to send. */
function recordingClient() {
  const sent: unknown[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        executeUpdate: async (_u: unknown, options?: { args?: unknown[] }) => {
          sent.push(options?.args);
          return {};
        },
      }),
    },
  } as unknown as Client;
  return { client, sent };
}
async function requestErrors(promise: Promise<unknown>): Promise<FieldError[]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestValidationError);
  return (error as RequestValidationError).errors;
}
const many = <T = string>(n: number, f: (i: number) => T = (i) => `x${i}` as T): T[] =>
  Array.from({ length: n }, (_, i) => f(i));

describe('unknown fields at the order edge', () => {
  it('every example order is still accepted', () => {
    for (const file of readdirSync(join(projectRoot, 'examples/brands')))
      expect(() => parseBrandOrder(readJson(`examples/brands/${file}`)), file).not.toThrow();
    for (const file of readdirSync(join(projectRoot, 'examples/campaigns')))
      expect(() => parseCampaignOrder(readJson(`examples/campaigns/${file}`)), file).not.toThrow();
  });

  it('a brand order names an unknown top-level field and a misspelled brand field, with a suggestion', () => {
    const order = brandOrder();
    const errors = brandErrors({
      ...order,
      priority: 'high',
      brand: { ...order.brand, webSite: 'https://x.example' },
    });
    expect(messageAt(errors, 'priority')).toBe('unknown field');
    expect(messageAt(errors, 'brand.webSite')).toBe('unknown field (did you mean website?)');
    expect(errors).toHaveLength(2);
  });

  it('a campaign order names unknown fields at the top and in the campaign', () => {
    const order = campaignOrder();
    const errors = campaignErrors({
      ...order,
      requireFeeAproval: true,
      campaign: { ...order.campaign, helpKeyword: 'HELP', brandId: 'B1' },
    });
    expect(messageAt(errors, 'requireFeeAproval')).toBe('unknown field (did you mean requireFeeApproval?)');
    expect(messageAt(errors, 'campaign.helpKeyword')).toBe('unknown field (did you mean helpKeywords?)');
    // brandId is set by the workflow, not the order.
    expect(messageAt(errors, 'campaign.brandId')).toMatch(/^unknown field/);
  });

  it('other errors are still reported with the unknown fields', () => {
    const order = brandOrder();
    const errors = brandErrors({ ...order, brand: { ...order.brand, email: 'nope', colour: 'red' } });
    expect(errors.map((e) => e.path).sort()).toEqual(['brand.colour', 'brand.email']);
  });

  it('10,000 unknown keys: a bounded report that names the first ones', () => {
    const order = brandOrder();
    const junk = Object.fromEntries(many(10_000, (i) => [`junk${i}`, i]) as [string, number][]);
    const errors = brandErrors({ ...order, brand: { ...order.brand, ...junk } });
    expect(errors.length).toBeLessThanOrEqual(REQUEST_LIMITS.reportedUnknownFields + 1);
    expect(messageAt(errors, 'brand.junk0')).toBe('unknown field');
    expect(messageAt(errors, 'brand')).toMatch(/and 9,990 more unknown fields/);
  });

  it('a hostile key is named escaped and cut short', () => {
    const order = brandOrder();
    const key = `\u001b[2J${'k'.repeat(500)}`;
    const errors = brandErrors({ ...order, brand: { ...order.brand, [key]: 1 } });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path.startsWith('brand."\\u001b[2Jkkk')).toBe(true);
    expect(errors[0]?.path.length).toBeLessThan(120);
  });
});

describe('caps at the order edge', () => {
  it('optionalAttributes with 10,000 keys is refused without judging each value', () => {
    const order = brandOrder();
    const attrs = Object.fromEntries(
      many(10_000, (i) => [`a${i}`, { not: 'a valid value' }]) as [string, unknown][],
    );
    const errors = brandErrors({ ...order, brand: { ...order.brand, optionalAttributes: attrs } });
    expect(errors).toEqual([
      {
        path: 'brand.optionalAttributes',
        message: `at most ${REQUEST_LIMITS.optionalAttributes} optional attributes`,
      },
    ]);
  });

  it('an optional attribute name is length-limited', () => {
    const order = brandOrder();
    const errors = brandErrors({
      ...order,
      brand: { ...order.brand, optionalAttributes: { ['n'.repeat(101)]: true } },
    });
    expect(errors.map((e) => e.path)).toEqual(['brand.optionalAttributes']);
  });

  it('tag with 10,000 entries, and subUsecases and mnoIDs over their caps, are refused by name', () => {
    const order = campaignOrder();
    const errors = campaignErrors({
      ...order,
      campaign: {
        ...order.campaign,
        tag: many(10_000),
        subUsecases: many(REQUEST_LIMITS.subUsecases + 1),
        mnoIDs: many(REQUEST_LIMITS.mnoIDs + 1, (i) => i),
      },
    });
    expect(errors.map((e) => e.path).sort()).toEqual([
      'campaign.mnoIDs',
      'campaign.subUsecases',
      'campaign.tag',
    ]);
    expect(messageAt(errors, 'campaign.tag')).toMatch(`at most ${REQUEST_LIMITS.tag}`);
  });

  it('the caps themselves are accepted', () => {
    const order = campaignOrder();
    expect(() =>
      parseCampaignOrder({
        ...order,
        campaign: {
          ...order.campaign,
          tag: many(REQUEST_LIMITS.tag),
          mnoIDs: many(REQUEST_LIMITS.mnoIDs, (i) => i),
        },
      }),
    ).not.toThrow();
    const brand = brandOrder();
    const attrs = Object.fromEntries(
      many(REQUEST_LIMITS.optionalAttributes, (i) => [`a${i}`, true]) as [string, boolean][],
    );
    expect(() =>
      parseBrandOrder({ ...brand, brand: { ...brand.brand, optionalAttributes: attrs } }),
    ).not.toThrow();
  });
});

describe('operator requests through the typed API', () => {
  it('refuse unknown fields at the top and in a patch, naming them, and send nothing', async () => {
    const { client, sent } = recordingClient();
    const correction = await requestErrors(
      correctBrand(client, 'acme', { patch: { webSite: 'https://x.example' }, revett: true } as never),
    );
    expect(messageAt(correction, 'patch.webSite')).toBe('unknown field (did you mean website?)');
    expect(messageAt(correction, 'revett')).toBe('unknown field (did you mean revet?)');
    const resubmit = await requestErrors(
      resubmitCampaign(client, 'c1', { changes: { descripton: 'x' } } as never),
    );
    expect(messageAt(resubmit, 'changes.descripton')).toBe('unknown field (did you mean description?)');
    const fee = await requestErrors(
      approveCampaignFee(client, 'c1', { approvedBy: 'ops', maxFee: 3 } as never),
    );
    expect(messageAt(fee, 'maxFee')).toMatch(/^unknown field/);
    const vet = await requestErrors(
      orderVet(client, 'acme', { evpId: 'AEGIS', vettingClass: 'STANDARD', x: 1 } as never),
    );
    expect(vet.map((e) => e.path)).toEqual(['x']);
    const imported = await requestErrors(
      importVet(client, 'acme', { evpId: 'AEGIS', vettingId: 'v', token: 't' } as never),
    );
    expect(messageAt(imported, 'token')).toBe('unknown field');
    expect(sent).toEqual([]);
  });

  it('cap appeal lists, patch records and change lists', async () => {
    const { client, sent } = recordingClient();
    const appeal = await requestErrors(
      appealBrand(client, 'acme', {
        appealCategories: many(10_000),
        attachmentUuids: many(REQUEST_LIMITS.attachmentUuids + 1),
        explanation: 'e',
        evpId: 'e'.repeat(256),
      }),
    );
    expect(appeal.map((e) => e.path).sort()).toEqual(['appealCategories', 'attachmentUuids', 'evpId']);
    const patch = await requestErrors(
      correctBrand(client, 'acme', {
        patch: {
          optionalAttributes: Object.fromEntries(many(10_000, (i) => [`a${i}`, 1]) as [string, number][]),
        },
      }),
    );
    expect(patch.map((e) => e.path)).toEqual(['patch.optionalAttributes']);
    const changes = await requestErrors(resubmitCampaign(client, 'c1', { changes: { tag: many(10_000) } }));
    expect(changes.map((e) => e.path)).toEqual(['changes.tag']);
    expect(sent).toEqual([]);
  });
});
