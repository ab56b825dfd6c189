/**
 * The bookkeeping every entity workflow (brand, campaign) does the same way: the audit trail, the
 * operator actions it needs, and the search attributes operators find it by (phase, needs action,
 * registry id), upserted only when they change. Deterministic: workflow APIs and pure code only.
 */
import { patched, upsertSearchAttributes } from '@temporalio/workflow';
import type { OperatorAction } from '../../contracts/brand.js';
import {
  type BrandIdKey,
  FingerprintKey,
  NeedsActionKey,
  NeedsActionSinceKey,
  PhaseKey,
} from '../../contracts/search-attributes.js';
import { PATCHES } from '../patches.js';
import { type AuditCause, type AuditTrail, appendAudit } from './audit.js';
import { recordNeedsAction, recordPhaseTransition } from './metrics.js';

/** A needs-action change, as the brand and campaign decisions return it: set (with its text) or clear. */
export type ActionChange =
  | {
      set: true;
      action: string;
      reason: string;
      registryErrors?: { description: string; fields: string[] }[];
    }
  | { set: false };

/** The part of an entity's status this module keeps. */
export interface EntityStatusCore {
  phase: string;
  needsAction: OperatorAction[];
  audit: AuditTrail;
}

export class EntityBookkeeping {
  private readonly upserted: {
    phase?: string;
    needsAction?: boolean;
    registryId?: string;
    fingerprint?: string;
    /** The oldest open needs-action's `since`, or null once upserted as absent. */
    needsActionSince?: string | null;
  } = {};

  constructor(
    private readonly status: EntityStatusCore,
    /**
     * The registry id's search attribute (TcrBrandId, TcrCampaignId) and where to read the id; none for
     * a workflow that is not the owner of a registry entity (a vet), so the ingress never routes to it.
     */
    private readonly registryIdKey: typeof BrandIdKey | undefined,
    private readonly registryId: () => string | undefined,
    private readonly auditLimit?: number,
    /** The fingerprint of the registry's last record (src/contracts/fingerprint.ts), if the entity has one. */
    private readonly fingerprint: () => string | undefined = () => undefined,
  ) {}

  audit(cause: AuditCause, event: string, detail?: string, from?: string, to?: string): void {
    appendAudit(
      this.status.audit,
      {
        cause,
        event,
        ...(detail !== undefined ? { detail } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
      },
      this.auditLimit,
    );
    if (event === 'phase' && from !== undefined && to !== undefined && from !== to)
      recordPhaseTransition(from, to);
  }

  /** Upserts phase, needs-action, registry id and fingerprint where they changed since the last upsert. */
  syncSearchAttributes(): void {
    const { status, upserted } = this;
    const needsAction = status.needsAction.length > 0;
    const id = this.registryId();
    const fingerprint = this.fingerprint();
    const pairs = [];
    if (upserted.phase !== status.phase) pairs.push({ key: PhaseKey, value: status.phase });
    if (upserted.needsAction !== needsAction) pairs.push({ key: NeedsActionKey, value: needsAction });
    if (this.registryIdKey && id && upserted.registryId !== id)
      pairs.push({ key: this.registryIdKey, value: id });
    const newFingerprint =
      fingerprint !== undefined &&
      upserted.fingerprint !== fingerprint &&
      patched(PATCHES.registryFingerprint);
    if (newFingerprint) pairs.push({ key: FingerprintKey, value: fingerprint });
    // Both behind their patches: workflows started before them never upsert these, so their recorded
    // histories replay unchanged.
    const since = oldestSince(status.needsAction);
    // Absent at start: nothing to remove until one was set.
    const sinceChanged = since !== (upserted.needsActionSince ?? null) && patched(PATCHES.needsActionSince);
    if (sinceChanged)
      pairs.push({ key: NeedsActionSinceKey, value: since === null ? null : new Date(since) });
    if (pairs.length === 0) return;
    upsertSearchAttributes(pairs);
    upserted.phase = status.phase;
    upserted.needsAction = needsAction;
    if (id) upserted.registryId = id;
    if (newFingerprint) upserted.fingerprint = fingerprint;
    if (sinceChanged) upserted.needsActionSince = since;
  }

  hasAction(key: string): boolean {
    return this.status.needsAction.some((a) => a.key === key);
  }

  /** Records (or replaces) the operator action under `key`. */
  setAction(
    key: string,
    action: string,
    reason: string,
    registryErrors?: OperatorAction['registryErrors'],
  ): void {
    const previous = this.status.needsAction.find((a) => a.key === key);
    if (!previous) recordNeedsAction('raised', key);
    this.status.needsAction = this.status.needsAction.filter((a) => a.key !== key);
    this.status.needsAction.push({
      key,
      action,
      reason,
      // A need restated in new words (a fault that changed, a second refusal) is as old as it was.
      since: previous?.since ?? new Date(Date.now()).toISOString(),
      ...(registryErrors && registryErrors.length > 0 ? { registryErrors } : {}),
    });
    this.syncSearchAttributes();
  }

  clearAction(key: string): void {
    if (!this.hasAction(key)) return;
    recordNeedsAction('cleared', key);
    this.status.needsAction = this.status.needsAction.filter((a) => a.key !== key);
    this.syncSearchAttributes();
  }
}

/** The earliest `since` of the open needs-action entries (ISO times compare as text), or null. */
function oldestSince(actions: readonly OperatorAction[]): string | null {
  let oldest: string | null = null;
  for (const a of actions) if (oldest === null || a.since < oldest) oldest = a.since;
  return oldest;
}
