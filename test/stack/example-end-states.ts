/**
 * The documented end states of the bundled example orders (docs/local-stack.md, "Example orders"), and
 * a wait for a local stack's workflows to reach them, and the stack the tests start. Shared by the default and the strict stack tests.
 */
import { getBrandStatus } from '../../src/orders/brand-client.js';
import { getCampaignStatus } from '../../src/orders/campaign-orders.js';
import {
  LOCAL_ACCOUNT_NAME,
  type LocalStack,
  type LocalStackOptions,
  startLocalStack,
} from '../../src/stack/index.js';
import { workflowsPath } from '../../src/workers/create-workers.js';
import { workflowBundle } from '../support/temporal-env.js';

/**
 * The whole local stack on free ports in `dataDir`, the simulator at 3600x (a vet decision, an hour, in
 * one second), with `options` over that.
 */
export async function startTestLocalStack(
  dataDir: string,
  options: Partial<LocalStackOptions> = {},
): Promise<LocalStack> {
  return startLocalStack({
    dataDir,
    temporalPort: 0,
    uiPort: 0,
    simulatorPort: 0,
    ingressPort: 0,
    codecPort: 0,
    timeScale: 3600,
    workflowBundle: await workflowBundle(workflowsPath),
    ...options,
  });
}

export const brandEndStates: Record<string, string> = {
  'acme-widgets': 'ready',
  'globex-public': 'ready',
  'riverside-food-bank': 'ready',
  'bright-minds-tutoring': 'ready',
  'initech-unverified': 'needs-correction',
};
export const campaignEndStates: Record<string, string> = {
  'acme-account-notifications': 'running',
  'globex-delivery-updates': 'running',
  'riverside-volunteer-alerts': 'share-declined',
  'acme-marketing': 'awaiting-fee-approval',
};

export const expectedEndStates: Record<string, string> = {
  ...Object.fromEntries(Object.entries(brandEndStates).map(([r, p]) => [`brand/${r}`, p])),
  ...Object.fromEntries(Object.entries(campaignEndStates).map(([r, p]) => [`campaign/${r}`, p])),
};

/** Each example workflow's phase (`unknown` when its status cannot be read). */
export async function examplePhases(s: LocalStack): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const ref of Object.keys(brandEndStates))
    out[`brand/${ref}`] = await getBrandStatus(s.client, {
      account: LOCAL_ACCOUNT_NAME,
      reference: ref,
    }).then(
      (x) => x.phase,
      () => 'unknown',
    );
  for (const ref of Object.keys(campaignEndStates))
    out[`campaign/${ref}`] = await getCampaignStatus(s.client, {
      account: LOCAL_ACCOUNT_NAME,
      reference: ref,
    }).then(
      (x) => x.phase,
      () => 'unknown',
    );
  return out;
}

/** The phases once they equal the end states, or the last phases read when `timeoutMs` ran out. */
export async function waitForEndStates(s: LocalStack, timeoutMs: number): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, string> = {};
  while (Date.now() < deadline) {
    last = await examplePhases(s);
    if (JSON.stringify(last) === JSON.stringify(expectedEndStates)) return last;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return last;
}
