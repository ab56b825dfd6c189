/**
 * The workflows' zod-free request checks: they accept every request the edge's zod schemas accept
 * (so moving validation to the edge refuses nothing that used to pass), and they refuse, naming the
 * field, what a raw Temporal client could still send. The workflow bundle must not contain zod.
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AppealRequestSchema,
  CancelRequestSchema,
  CorrectBrandRequestSchema,
  ImportVetRequestSchema,
  OrderVetRequestSchema,
} from '../../src/contracts/brand-requests.js';
import {
  AcknowledgeRequestSchema,
  ApproveFeeRequestSchema,
  CampaignCancelRequestSchema,
  ResubmitRequestSchema,
  ShareWithRequestSchema,
} from '../../src/contracts/campaign-requests.js';
import * as edge from '../../src/orders/request-schemas.js';
import { REQUEST_LIMITS } from '../../src/registry/request-limits.js';
import { BrandUpdateSchema, CampaignUpdateSchema } from '../../src/registry/schemas.js';
import {
  BRAND_PATCH_FIELDS,
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
  approveFee: [
    { approvedBy: 'ops' },
    { approvedBy: 'ops', maxMonthlyFee: 10 },
    {
      approvedBy: 'ops',
      signedApproval: { issuedAt: '2026-11-28T12:00:00.000Z', nonce: 'n', signature: 's' },
    },
  ],
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
    expect(() => checkApproveFeeRequest({ approvedBy: 'ops', signedApproval: 'sig' })).toThrow(
      /signedApproval: expected an object/,
    );
    expect(() =>
      checkApproveFeeRequest({
        approvedBy: 'ops',
        signedApproval: { issuedAt: 'x', nonce: 'n', signature: 's', key: 'k' },
      }),
    ).toThrow(/signedApproval\.key: unknown field/);
    expect(() =>
      checkApproveFeeRequest({ approvedBy: 'ops', signedApproval: { issuedAt: 'x', nonce: 'n' } }),
    ).toThrow(/signedApproval\.signature: required/);
    expect(() => checkResubmitRequest({ changes: { brandId: 'B1' } })).toThrow(
      /changes\.brandId: unknown field/,
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

  it('know exactly the brand fields the registry update schema has', () => {
    expect([...BRAND_PATCH_FIELDS].sort()).toEqual(Object.keys(BrandUpdateSchema.shape).sort());
  });

  it('refuse unknown keys, at the top and in a patch, naming each (a raw client skips the typed API)', () => {
    expect(() => checkCorrectBrandRequest({ patch: { webSite: 'https://x.example' } })).toThrow(
      'invalid correctBrand request: patch.webSite: unknown field (did you mean website?)',
    );
    expect(() => checkCorrectBrandRequest({ patch: { email: 'a@b.example' }, revett: true })).toThrow(
      /revett: unknown field/,
    );
    expect(() => checkResubmitRequest({ changes: { descripton: 'd' } })).toThrow(
      /changes\.descripton: unknown field \(did you mean description\?\)/,
    );
    const extra = { x: 1 };
    expect(() => checkAppealRequest({ ...valid.appeal[0], ...extra })).toThrow(/x: unknown field/);
    expect(() => checkOrderVetRequest({ ...valid.orderVet[0], ...extra })).toThrow(/x: unknown field/);
    expect(() => checkImportVetRequest({ ...valid.importVet[0], ...extra })).toThrow(/x: unknown field/);
    expect(() => checkCancelRequest({ ...valid.cancel[0], ...extra })).toThrow(/x: unknown field/);
    expect(() => checkApproveFeeRequest({ ...valid.approveFee[0], ...extra })).toThrow(/x: unknown field/);
    expect(() => checkResubmitRequest({ ...valid.resubmit[0], ...extra })).toThrow(/x: unknown field/);
    expect(() => checkShareWithRequest({ ...valid.shareWith[0], ...extra })).toThrow(/x: unknown field/);
    expect(() => checkAcknowledgeRequest({ ...valid.acknowledge[0], ...extra })).toThrow(/x: unknown field/);
    // 10,000 unknown keys: a bounded message.
    const junk = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`j${i}`, i]));
    const message = (() => {
      try {
        checkCorrectBrandRequest({ patch: junk });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message).toMatch(/and 9,990 more unknown fields/);
    expect(message.length).toBeLessThan(1000);
  });

  it('respect the caps of the edge schemas', () => {
    const L = REQUEST_LIMITS;
    const many = (n: number) => Array.from({ length: n }, (_, i) => `x${i}`);
    const attrs = (n: number, name = (i: number) => `a${i}`) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), true]));
    // At the caps: accepted by both the schema and the check.
    const atCaps: [unknown, { safeParse(v: unknown): { success: boolean } }, (r: unknown) => unknown][] = [
      [
        { patch: { optionalAttributes: attrs(L.optionalAttributes) } },
        CorrectBrandRequestSchema,
        checkCorrectBrandRequest,
      ],
      [
        {
          appealCategories: many(L.appealCategories),
          attachmentUuids: many(L.attachmentUuids),
          explanation: 'e',
        },
        AppealRequestSchema,
        checkAppealRequest,
      ],
      [
        {
          changes: {
            subUsecases: many(L.subUsecases),
            tag: many(L.tag),
            mnoIDs: many(L.mnoIDs).map((_, i) => i),
          },
        },
        ResubmitRequestSchema,
        checkResubmitRequest,
      ],
    ];
    for (const [request, schema, check] of atCaps) {
      expect(schema.safeParse(request).success).toBe(true);
      expect(() => check(request)).not.toThrow();
    }
    // One over: refused by both, the check naming the field.
    const over: [
      unknown,
      { safeParse(v: unknown): { success: boolean } },
      (r: unknown) => unknown,
      RegExp,
    ][] = [
      [
        { patch: { optionalAttributes: attrs(10_000) } },
        CorrectBrandRequestSchema,
        checkCorrectBrandRequest,
        /^invalid correctBrand request: patch\.optionalAttributes: at most 32 optional attributes$/,
      ],
      [
        { patch: { optionalAttributes: attrs(1, () => 'n'.repeat(L.optionalAttributeName + 1)) } },
        CorrectBrandRequestSchema,
        checkCorrectBrandRequest,
        /patch\.optionalAttributes: an optional attribute name/,
      ],
      [
        { patch: { optionalAttributes: { note: 'x'.repeat(L.optionalAttributeString + 1) } } },
        CorrectBrandRequestSchema,
        checkCorrectBrandRequest,
        /patch\.optionalAttributes\.note: at most 512/,
      ],
      [
        { patch: { optionalAttributes: { note: { deep: 1 } } } },
        CorrectBrandRequestSchema,
        checkCorrectBrandRequest,
        /patch\.optionalAttributes\.note: expected/,
      ],
      [
        { appealCategories: many(10_000), explanation: 'e' },
        AppealRequestSchema,
        checkAppealRequest,
        /^invalid appeal: appealCategories: at most 20 entries$/,
      ],
      [
        { appealCategories: ['A'], attachmentUuids: many(L.attachmentUuids + 1), explanation: 'e' },
        AppealRequestSchema,
        checkAppealRequest,
        /attachmentUuids: at most 20/,
      ],
      [
        { appealCategories: ['x'.repeat(L.idLength + 1)], explanation: 'e' },
        AppealRequestSchema,
        checkAppealRequest,
        /appealCategories\.0: at most 255/,
      ],
      [
        { changes: { tag: many(10_000) } },
        ResubmitRequestSchema,
        checkResubmitRequest,
        /^invalid resubmit request: changes\.tag: at most 20 entries$/,
      ],
      [
        { changes: { subUsecases: many(L.subUsecases + 1) } },
        ResubmitRequestSchema,
        checkResubmitRequest,
        /changes\.subUsecases: at most 10/,
      ],
      [
        { changes: { mnoIDs: many(L.mnoIDs + 1).map((_, i) => i) } },
        ResubmitRequestSchema,
        checkResubmitRequest,
        /changes\.mnoIDs: at most 32/,
      ],
      [
        { evpId: 'x'.repeat(L.idLength + 1), vettingClass: 'STANDARD' },
        OrderVetRequestSchema,
        checkOrderVetRequest,
        /evpId: at most 255/,
      ],
      [
        { evpId: 'A', vettingId: 'v', vettingToken: 'x'.repeat(L.vettingToken + 1) },
        ImportVetRequestSchema,
        checkImportVetRequest,
        /vettingToken: at most 2048/,
      ],
    ];
    for (const [request, schema, check, message] of over) {
      expect(schema.safeParse(request).success, String(message)).toBe(false);
      expect(() => check(request)).toThrow(message);
    }
  });

  it('under arbitrary JSON: throw only their own refusal, and accept whatever the strict edge accepts', () => {
    const pairs: [
      { safeParse(v: unknown): { success: boolean; data?: unknown } },
      (r: unknown) => unknown,
      object,
    ][] = [
      [edge.StrictCorrectBrandRequestSchema, checkCorrectBrandRequest, valid.correctBrand[1]!],
      [edge.StrictAppealRequestSchema, checkAppealRequest, valid.appeal[1]!],
      [edge.StrictOrderVetRequestSchema, checkOrderVetRequest, valid.orderVet[0]!],
      [edge.StrictImportVetRequestSchema, checkImportVetRequest, valid.importVet[1]!],
      [edge.StrictCancelRequestSchema, checkCancelRequest, valid.cancel[0]!],
      [edge.StrictApproveFeeRequestSchema, checkApproveFeeRequest, valid.approveFee[1]!],
      [edge.StrictResubmitRequestSchema, checkResubmitRequest, valid.resubmit[1]!],
      [edge.StrictShareWithRequestSchema, checkShareWithRequest, valid.shareWith[0]!],
      [edge.StrictAcknowledgeRequestSchema, checkAcknowledgeRequest, valid.acknowledge[0]!],
    ];
    const names = [
      ...Object.keys(BrandUpdateSchema.shape),
      ...Object.keys(CampaignUpdateSchema.shape),
      'patch',
      'changes',
      'revet',
    ];
    const fields = fc.dictionary(
      fc.oneof(fc.constantFrom(...names), fc.string()),
      fc.jsonValue({ maxDepth: 2 }),
      {
        maxKeys: 6,
      },
    );
    for (const [schema, check, base] of pairs) {
      const values = fc.oneof(
        fc.jsonValue(),
        fields.map((f) => ({ ...base, ...f })),
        fields.map((f) => ({ ...base, patch: f })),
        fields.map((f) => ({ ...base, changes: f })),
        fc
          .dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
          .map((attributes) => ({ ...base, patch: { optionalAttributes: attributes } })),
      );
      fc.assert(
        fc.property(values, (value) => {
          try {
            check(value);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            expect((error as Error).message).toMatch(/^invalid /);
          }
          const parsed = schema.safeParse(value);
          if (parsed.success) expect(() => check(parsed.data)).not.toThrow();
        }),
        { numRuns: 150 },
      );
    }
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
