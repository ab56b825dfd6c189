/**
 * Every patch marker the workflows record (`patched(id)`), in one place: a change of command order
 * after the first release goes behind one, so the histories recorded before it replay unchanged
 * (docs/workflows.md, "Versioning"). The SDK writes a marker's id into history in clear: ids name a
 * change, never data.
 */
export const PATCHES = {
  /** Brand and campaign workflows upsert TcrFingerprint (the estate sweep compares it). */
  registryFingerprint: 'registry-fingerprint',
  /** Brand and campaign workflows upsert TcrNeedsActionSince (the needs-action age gauge). */
  needsActionSince: 'needs-action-since',
  /** An adopted brand reads its vets at the registry and follows them (tcr import). */
  adoptedBrandVets: 'adopted-brand-vets',
  /** Writes at the operator and webhook priorities go to `registry-writes/{account}/interactive`. */
  interactiveWrites: 'interactive-writes',
  /** Campaigns: partner checked before creation; running decided by a DCA's acceptance, not mnoOperationStatus. */
  campaignSpecLifecycle: 'campaign-spec-lifecycle',
  /** The estate's walks page by totalRecords and the records a page held, not the size asked (issue 33). */
  estatePagingByTotal: 'estate-paging-by-total',
  /** A sole proprietor is ready when the campaign builder supports SOLE_PROPRIETOR; brand waits have deadlines. */
  brandSpecWaits: 'brand-spec-waits',
  /** Vet orders and imports ask the provider's /enum/extVettingProvider record first (issue 33). */
  vetOfferCheck: 'vet-offer-check',
  /** Vets: an identical request in progress answered once, update ids remembered, run-unique vet ids (issue 34). */
  vetOnce: 'vet-once',
  /** Parked events claimed under the account's ids (`parked/{account}/...`), as the ingress parks them (issue 35). */
  accountIds: 'account-ids',
  /** Every operator update once per update id (remembered across runs); identical billed ones in progress answered once (issue 34). */
  updateOnce: 'update-once',
  /** Order systems subscribe to a brand's or campaign's notifications (issue 38). */
  notifications: 'notifications',
  /** Cancel of a created campaign turns renewal off at the registry and winds down until EXPIRED (issue 34). */
  campaignWindDown: 'campaign-wind-down',
  /** Write budget: a restarted run keeps quiet, reservation ids answered once, deadlines, the reach (issue 36). */
  writeBudgetRestart: 'write-budget-restart',
  /** A Temporal cancellation of a created campaign turns its renewal off (bounded) before the workflow ends (issue 34). */
  campaignCancelRenewalOff: 'campaign-cancel-renewal-off',
  /** A bulk read pending when an operator's step arrives is cancelled; the step runs, then a re-read (issue 36). */
  operatorsBeforeBulkReads: 'operators-before-bulk-reads',
  /** Entity runs continue as new past an age (idle) and on the server's suggestion, the wait woken by it (issue 36). */
  runLifetime: 'run-lifetime',
  /** A campaign's brand-readiness watch is re-sent until the signal reaches the brand workflow (issue 36). */
  brandWatchResent: 'brand-watch-resent',
  /** approveFee asks verifyFeeApproval (the approver's signature) before the billed creation (issue 35). */
  feeApprovalSigned: 'fee-approval-signed',
  /** An adoptee's handlers are set once the registry's record decided its phase: a step sent before its first task is judged by it (issue 36). */
  adopteeHandlersAfterRecord: 'adoptee-handlers-after-record',
  /** A resubmitted order (before creation) needs a new fee approval: the one given was for the order as it was (issue 34). */
  resubmitNeedsApproval: 'resubmit-needs-approval',
  /** A refused share PUT reads the share back: a retry refused for the share its own lost attempt made adopts it (issue 33). */
  shareRefusalReadsBack: 'share-refusal-reads-back',
  /** awaiting-dca polls at the steady rate: no read decides it, only CAMPAIGN_DCA_COMPLETE or the operator (issue 37). */
  awaitingDcaSteadyPoll: 'awaiting-dca-steady-poll',
} as const;

export const patchIds: readonly string[] = Object.values(PATCHES);
