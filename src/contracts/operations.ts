/**
 * What every brand and campaign update returns: the operation's outcome and the entity's phase after
 * it. The workflows' operation queue (src/workflows/entity/operations.ts) produces it; the order
 * client and the CLI show it. Type-only.
 */

/** One error entry of a registry refusal (400), as an outcome or a needs-action entry shows it. */
export interface RegistryErrorEntry {
  code?: number | string;
  description: string;
  fields: string[];
}

export type OperationOutcomeKind =
  /** Done as asked. */
  | 'done'
  /** The registry (or a rule of the workflow) refused it; `detail` says why. Nothing changed. */
  | 'refused'
  /** A registry fault (401, 5xx, …) stopped it; the status shows needs-action. Safe to ask again. */
  | 'failed'
  /**
   * Taken and recorded (e.g. the fee approved), but the registry call that carries it out met a fault
   * (`detail` names it and any needs-action); the workflow retries that call by itself. Nothing to ask
   * again: watch the status, and fix what its needs-action names (credentials, permissions).
   */
  | 'accepted'
  /**
   * The entity was cancelled before the operation ran, or a Temporal cancellation interrupted it
   * (`detail` says so, and what became of the registry call it had in flight).
   */
  | 'cancelled';

/** What an update returns: small, so each operator action adds little to history. */
export interface OperationOutcome<P extends string = string> {
  id: number;
  operation: string;
  outcome: OperationOutcomeKind;
  /** The entity's phase once the operation ran. */
  phase: P;
  detail?: string;
  registryErrors?: RegistryErrorEntry[];
  /** Registry ids the operation learned or created (brandId, campaignId, vettingId, vet seq). */
  ids?: Record<string, string>;
}
