/**
 * "Money spent once" as the registry holds it: the campaign registration fees charged for an order's
 * reference, whatever campaign id they were charged under. A fee looked up by the workflow's own
 * campaign id cannot see a second campaign the product created for the same reference (its fee is
 * under another id), so "one fee" is counted per reference: every registration fee in the ledger,
 * its campaign read back from the registry (single retrieval answers deactivated campaigns too).
 */
import type { RegistryClient } from '../../src/registry/client.js';
import type { SimulatorControl } from '../../src/simulator/control-client.js';

export async function registrationFeesFor(
  bench: { control: SimulatorControl; registry: RegistryClient },
  reference: string,
) {
  const fees = (await bench.control.ledger()).filter((e) => e.kind === 'CAMPAIGN_REGISTRATION');
  const references = new Map<string, string | null | undefined>();
  for (const id of new Set(fees.map((e) => e.campaignId)))
    references.set(id, (await bench.registry.getCampaign(id)).referenceId);
  return fees.filter((e) => references.get(e.campaignId) === reference);
}
