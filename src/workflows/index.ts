/**
 * Every workflow the `tcr-workflows` task queue runs. Workers bundle this module
 * (src/workers/create-workers.ts); it must import nothing with side effects.
 */
import type { BRAND_WORKFLOW_TYPE, BrandWorkflow } from '../contracts/brand.js';
import type { CAMPAIGN_WORKFLOW_TYPE, CampaignWorkflow } from '../contracts/campaign.js';
import type {
  ESTATE_IMPORT_WORKFLOW_TYPE,
  ESTATE_SWEEP_WORKFLOW_TYPE,
  EstateImportInput,
  EstateSweepInput,
  ImportStatus,
  SweepStatus,
} from '../contracts/estate.js';
import type { brandWorkflow } from './brand/workflow.js';
import type { campaignWorkflow } from './campaign/workflow.js';
import type { estateImportWorkflow } from './estate/import.js';
import type { estateSweepWorkflow } from './estate/sweep.js';

export { brandWorkflow } from './brand/workflow.js';
export { writeBudget } from './budget/write-budget.js';
export { campaignWorkflow } from './campaign/workflow.js';
export { estateImportWorkflow } from './estate/import.js';
export { estateSweepWorkflow } from './estate/sweep.js';
export { orderOutcomeWorkflow } from './nexus/order-outcome.js';
export { parkedEvents } from './parked-events.js';
export { vetWorkflow } from './vet/workflow.js';

/**
 * The order client starts and steers these workflows by the names and signatures of their contracts
 * (src/contracts/brand.ts, campaign.ts), never by importing them: a name or signature that drifts from
 * the workflow exported here fails to compile.
 */
type Implements<T extends Contract, Contract> = T;
export type ImplementedContracts = [
  Implements<{ brandWorkflow: typeof brandWorkflow }, Record<typeof BRAND_WORKFLOW_TYPE, BrandWorkflow>>,
  Implements<
    { campaignWorkflow: typeof campaignWorkflow },
    Record<typeof CAMPAIGN_WORKFLOW_TYPE, CampaignWorkflow>
  >,
  Implements<
    { estateSweepWorkflow: typeof estateSweepWorkflow },
    Record<typeof ESTATE_SWEEP_WORKFLOW_TYPE, (input: EstateSweepInput) => Promise<SweepStatus>>
  >,
  Implements<
    { estateImportWorkflow: typeof estateImportWorkflow },
    Record<typeof ESTATE_IMPORT_WORKFLOW_TYPE, (input: EstateImportInput) => Promise<ImportStatus>>
  >,
];
