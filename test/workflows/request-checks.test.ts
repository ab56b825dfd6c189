/**
 * The workflows' zod-free request checks: they accept every request the edge's zod schemas accept
 * (so moving validation to the edge refuses nothing that used to pass), and they refuse, naming the
 * field, what a raw Temporal client could still send. The workflow bundle must not contain zod.
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { CampaignUpdateSchema } from '../../src/registry/schemas.js';
import {
  AppealRequestSchema,
  CancelRequestSchema,
  CorrectBrandRequestSchema,
  ImportVetRequestSchema,
  OrderVetRequestSchema,
} from '../../src/workflows/brand-messages.js';
import {
  AcknowledgeRequestSchema,
  ApproveFeeRequestSchema,
  CampaignCancelRequestSchema,
  ResubmitRequestSchema,
  ShareWithRequestSchema,
} from '../../src/workflows/campaign-messages.js';
import {
  CAMPAIGN_CHANGE_FIELDS,
  checkAcknowledgeRequest,
  checkAppealRequest,
  checkApproveFeeRequest,
  checkCampaignCancelRequest,
  checkCancelRequest,
  checkCorrectBrandRequest,
  checkImportVetRequest,
  checkOrderVetRequest,
  checkResubmitRequest,
  checkShareWithRequest,
} from '../../src/workflows/request-checks.js';

const valid = {
  correctBrand: [
    { patch: { email: 'ops@acme.example' } },
    { patch: { displayName: 'Acme', vertical: 'RETAIL' }, revet: true },
    { patch: { optionalAttributes: { taxExemptStatus: '501c3' } } },
  ],
  appeal: [
    { appealCategories: ['VERIFY_TAX_ID'], explanation: 'The EIN is correct.' },
    {
      appealCategories: ['VERIFY_TAX_ID', 'VERIFY_NON_PROFIT'],
      attachmentUuids: ['a1'],
      explanation: 'x',
      evpId: 'AEGIS',
      vettingId: 'v1',
    },
  ],
  orderVet: [{ evpId: 'AEGIS', vettingClass: 'STANDARD' }],
  importVet: [
    { evpId: 'AEGIS', vettingId: 'v1' },
    { evpId: 'AEGIS', vettingId: 'v1', vettingToken: 't' },
  ],
  cancel: [{ reason: 'order withdrawn' }],
  approveFee: [{ approvedBy: 'ops' }, { approvedBy: 'ops', maxMonthlyFee: 10 }],
  resubmit: [
    { changes: { description: 'New description of the campaign.' } },
    { changes: { subUsecases: ['2FA'], embeddedLink: false, mnoIDs: [10017], tag: ['t'] } },
  ],
  shareWith: [{ upstreamCnpId: 'SINCH' }],
  acknowledge: [{ key: 'suspended:10017' }],
};

describe('workflow request checks', () => {
  it('accept every request the edge schemas accept', () => {
    const pairs: [unknown[], { safeParse(v: unknown): { success: boolean } }, (r: unknown) => unknown][] = [
      [valid.correctBrand, CorrectBrandRequestSchema, checkCorrectBrandRequest],
      [valid.appeal, AppealRequestSchema, checkAppealRequest],
      [valid.orderVet, OrderVetRequestSchema, checkOrderVetRequest],
      [valid.importVet, ImportVetRequestSchema, checkImportVetRequest],
      [valid.cancel, CancelRequestSchema, checkCancelRequest],
      [valid.approveFee, ApproveFeeRequestSchema, checkApproveFeeRequest],
      [valid.resubmit, ResubmitRequestSchema, checkResubmitRequest],
      [valid.shareWith, ShareWithRequestSchema, checkShareWithRequest],
      [valid.cancel, CampaignCancelRequestSchema, checkCampaignCancelRequest],
      [valid.acknowledge, AcknowledgeRequestSchema, checkAcknowledgeRequest],
    ];
    for (const [requests, schema, check] of pairs)
      for (const request of requests) {
        expect(schema.safeParse(request).success).toBe(true);
        expect(() => check(request)).not.toThrow();
      }
  });

  it('refuse malformed requests, naming the field', () => {
    expect(() => checkCorrectBrandRequest({ patch: {} })).toThrow(
      /patch: an update needs at least one field/,
    );
    expect(() => checkCorrectBrandRequest({ patch: { email: null } })).toThrow(/patch\.email: expected/);
    expect(() => checkCorrectBrandRequest({ patch: { email: 'a' }, revet: 'yes' })).toThrow(
      /revet: expected/,
    );
    expect(() => checkCorrectBrandRequest('patch')).toThrow(/\(root\): expected an object/);
    expect(() => checkAppealRequest({ appealCategories: [], explanation: 'x' })).toThrow(
      /appealCategories: at least 1/,
    );
    expect(() => checkAppealRequest({ appealCategories: ['A'], explanation: 'x'.repeat(4001) })).toThrow(
      /explanation: at most 4000/,
    );
    expect(() => checkOrderVetRequest({ evpId: 'AEGIS', vettingClass: 'GOLD' })).toThrow(
      /vettingClass: expected one of/,
    );
    expect(() => checkImportVetRequest({ evpId: 'AEGIS' })).toThrow(/vettingId: required/);
    expect(() => checkCancelRequest({ reason: '' })).toThrow(/reason: must not be empty/);
    expect(() => checkApproveFeeRequest({ approvedBy: 'ops', maxMonthlyFee: -1 })).toThrow(/maxMonthlyFee/);
    expect(() => checkResubmitRequest({ changes: { brandId: 'B1' } })).toThrow(
      /changes\.brandId: not a campaign field/,
    );
    expect(() => checkResubmitRequest({ changes: { embeddedLink: 'no' } })).toThrow(/changes\.embeddedLink/);
    expect(() => checkResubmitRequest({ changes: { mnoIDs: ['x'] } })).toThrow(/changes\.mnoIDs/);
    expect(() => checkShareWithRequest({ upstreamCnpId: 'x'.repeat(101) })).toThrow(
      /upstreamCnpId: at most 100/,
    );
    expect(() => checkAcknowledgeRequest({})).toThrow(/key: required/);
    // Every issue at once.
    expect(() => checkImportVetRequest({})).toThrow(/evpId: required; vettingId: required/);
  });

  it('apply the schema default an appeal relies on', () => {
    expect(checkAppealRequest(valid.appeal[0]).attachmentUuids).toEqual([]);
  });

  it('know exactly the campaign fields the registry update schema has', () => {
    expect(Object.keys(CAMPAIGN_CHANGE_FIELDS).sort()).toEqual(
      Object.keys(CampaignUpdateSchema.shape).sort(),
    );
  });

  it('leave zod out of the workflow bundle', async () => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: new URL('../../src/workflows/index.ts', import.meta.url).pathname,
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    expect(bundle.code).not.toMatch(/node_modules\/zod\//);
    expect(bundle.code).not.toMatch(/registry\/schemas\.ts/);
  }, 120_000);
});
