/**
 * Caps on the lists, records and free text of orders and operator requests (issue 17). One table,
 * without zod, read by the registry's request schemas (./schemas.ts, so the order edge, the CLI and
 * the registry client) and by the workflows' own request checks (src/workflows/request-checks.ts,
 * whose bundle carries no zod). docs/cli.md ("Limits") lists them.
 *
 * The spec gives two of them: optional attribute strings hold at most 512 characters, and a campaign's
 * sub-use-case count lies between its use case's minimum and maximum (5 for every use case the
 * reference data lists). The others bound what the spec leaves open, well above any real order.
 */
export const REQUEST_LIMITS = {
  /** Sub-use-cases of a campaign (the spec's per-use-case maximum is 5; room for a larger one). */
  subUsecases: 10,
  /** MNO ids a campaign names (there are six MNOs in the reference data). */
  mnoIDs: 32,
  /** Tags of a campaign. */
  tag: 20,
  /** Characters of one tag. */
  tagLength: 255,
  /** Keys of `optionalAttributes` (names come from GET /enum/optionalAttributeNames: a handful). */
  optionalAttributes: 32,
  /** Characters of an optional attribute's name. */
  optionalAttributeName: 100,
  /** Spec, "Limits": a STRING optional attribute holds at most 512 characters. */
  optionalAttributeString: 512,
  /** Categories of one appeal. */
  appealCategories: 20,
  /** Attachments of one appeal. */
  attachmentUuids: 20,
  /** Characters of an id sent in a request (evpId, vettingId, appeal category, attachment id). */
  idLength: 255,
  /** Characters of an imported vet's token. */
  vettingToken: 2048,
  /** Characters of a POLITICAL vet order's `politicalPayload` as JSON (the spec shows no payload). */
  politicalPayloadChars: 16_384,
  /** Unknown fields named one by one in a refusal; the rest are counted in one more error. */
  reportedUnknownFields: 10,
} as const;
