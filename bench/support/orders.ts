/** Order generators for the benchmarks and drills, built from the example orders in examples/. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/toolchain/paths.js';
import { ACCOUNT } from './bench-stack.js';

interface ExampleBrandOrder {
  reference: string;
  account: string;
  brand: Record<string, unknown>;
}
interface ExampleCampaignOrder {
  reference: string;
  account: string;
  brandReference: string;
  upstreamCnpId: string;
  campaign: Record<string, unknown>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(projectRoot, path), 'utf8')) as T;

export const exampleBrand = (): ExampleBrandOrder => readJson('examples/brands/acme-widgets.json');
export const exampleCampaign = (): ExampleCampaignOrder =>
  readJson('examples/campaigns/acme-account-notifications.json');

/** A PRIVATE_PROFIT brand order (verified at once by the simulator). `companyName` may carry a marker. */
export function brandOrder(reference: string, brand: Record<string, unknown> = {}): ExampleBrandOrder {
  const base = exampleBrand();
  return {
    reference,
    account: ACCOUNT,
    brand: {
      ...base.brand,
      displayName: `Bench ${reference}`,
      companyName: `Bench ${reference} LLC`,
      ...brand,
    },
  };
}

/** An ACCOUNT_NOTIFICATION campaign order shared with the DCA SINCH. */
export function campaignOrder(reference: string, brandReference: string): ExampleCampaignOrder {
  const base = exampleCampaign();
  return { ...base, reference, account: ACCOUNT, brandReference };
}
