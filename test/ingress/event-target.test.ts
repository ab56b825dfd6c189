import { describe, expect, it } from 'vitest';
import { eventTarget } from '../../src/ingress/router.js';

describe('eventTarget: which workflow an event belongs to', () => {
  it('sends campaign events to the campaign, by reference first', () => {
    expect(
      eventTarget({
        eventType: 'CAMPAIGN_ADD',
        campaignId: 'C1',
        campaignReferenceId: 'ord-1',
        brandId: 'B1',
      }),
    ).toEqual({
      kind: 'campaign',
      reference: 'ord-1',
      registryId: 'C1',
    });
    expect(eventTarget({ eventType: 'MNO_CAMPAIGN_OPERATION_SUSPENDED', campaignId: 'C1' })).toEqual({
      kind: 'campaign',
      reference: undefined,
      registryId: 'C1',
    });
  });

  it('sends brand and vetting events to the brand', () => {
    expect(
      eventTarget({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: 'B1', brandReferenceId: 'acme' }),
    ).toMatchObject({
      kind: 'brand',
      reference: 'acme',
    });
    expect(eventTarget({ eventType: 'EVP_REPORT_SCORE', brandId: 'B1', evpId: 'AEGIS' })).toMatchObject({
      kind: 'brand',
      registryId: 'B1',
    });
    expect(
      eventTarget({ eventType: 'VETTING_COMPLETE', vettingId: 'v', brandReferenceId: 'acme' }),
    ).toMatchObject({
      kind: 'brand',
      reference: 'acme',
    });
  });

  it('ignores a reference that cannot be one of our workflow ids and falls back to the registry id', () => {
    expect(eventTarget({ eventType: 'BRAND_ADD', brandId: 'B1', brandReferenceId: 'not/ours' })).toEqual({
      kind: 'brand',
      reference: undefined,
      registryId: 'B1',
    });
    expect(eventTarget({ eventType: 'BRAND_ADD', brandReferenceId: 'not/ours' })).toBeUndefined();
  });

  it('has nothing to route by for events without ids (including vetting events without a brand)', () => {
    expect(eventTarget({ eventType: 'CSP_NOTICE', cspId: 'X' })).toBeUndefined();
    expect(eventTarget({ eventType: 'EVP_SOMETHING', evpId: 'AEGIS' })).toBeUndefined();
  });
});
