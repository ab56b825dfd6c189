/**
 * Checks of operator requests inside the workflows (update validators and handlers), without zod.
 *
 * Operator requests are parsed with their zod schemas at the edge: the typed API (src/orders) and the
 * CLI parse them before they send the update (src/contracts/brand-requests.ts and
 * campaign-requests.ts hold the schemas; workflow code imports neither: test/layout/imports.test.ts).
 * Inside the workflow these checks refuse, with the field named, what a raw Temporal client could still
 * send: a missing or mistyped field, an unknown field (at the top or in a patch), an empty patch, a
 * list, record or string over its cap (the caps of src/registry/request-limits.ts, the same the edge
 * schemas use). The registry client validates every request body once more before the call.
 *
 * Why not zod here: the SDK gives every workflow instance its own copy of the bundle's modules, so a
 * workflow module that imports zod loads zod and builds every registry schema again for each
 * workflow started or replayed. In the scale benchmark that was more than half of the worker's
 * workflow CPU (docs/benchmarks.md, section 3).
 */

import type {
  AppealRequest,
  CancelRequest,
  CorrectBrandRequest,
  ImportVetRequest,
  OrderVetRequest,
} from '../contracts/brand-operations.js';
import type {
  AcknowledgeRequest,
  ApproveFeeRequest,
  CampaignCancelRequest,
  ConfirmDcaCompleteRequest,
  ResubmitRequest,
  ShareWithRequest,
  UpdateCampaignRequest,
} from '../contracts/campaign-operations.js';
import { unknownFieldErrors } from '../registry/field-errors.js';
import { REQUEST_LIMITS as LIMIT } from '../registry/request-limits.js';

type Issues = string[];
type Json = Record<string, unknown>;

const VETTING_CLASSES = ['STANDARD', 'ENHANCED', 'POLITICAL'];

/**
 * Campaign content fields a resubmit may change, with their JSON type (a test keeps this equal to the
 * registry's campaign update schema).
 */
export const CAMPAIGN_CHANGE_FIELDS: Readonly<
  Record<string, 'string' | 'boolean' | 'string[]' | 'integer[]'>
> = {
  subUsecases: 'string[]',
  resellerId: 'string',
  description: 'string',
  embeddedLink: 'boolean',
  embeddedPhone: 'boolean',
  termsAndConditions: 'boolean',
  numberPool: 'boolean',
  ageGated: 'boolean',
  directLending: 'boolean',
  subscriberOptin: 'boolean',
  subscriberOptout: 'boolean',
  subscriberHelp: 'boolean',
  sample1: 'string',
  sample2: 'string',
  sample3: 'string',
  sample4: 'string',
  sample5: 'string',
  messageFlow: 'string',
  helpMessage: 'string',
  optinMessage: 'string',
  optoutMessage: 'string',
  optinKeywords: 'string',
  optoutKeywords: 'string',
  helpKeywords: 'string',
  privacyPolicyLink: 'string',
  termsAndConditionsLink: 'string',
  embeddedLinkSample: 'string',
  mnoIDs: 'integer[]',
  autoRenewal: 'boolean',
  tag: 'string[]',
};

/**
 * Brand fields a correction's patch may change (a test keeps this equal to the registry's brand
 * update schema). Values are judged by the workflow's group rules and the registry client.
 */
export const BRAND_PATCH_FIELDS: readonly string[] = [
  'entityType',
  'displayName',
  'companyName',
  'firstName',
  'lastName',
  'ein',
  'einIssuingCountry',
  'phone',
  'mobilePhone',
  'street',
  'city',
  'state',
  'postalCode',
  'country',
  'email',
  'website',
  'brandRelationship',
  'vertical',
  'mock',
  'businessContactTitle',
  'businessContactFirstName',
  'businessContactLastName',
  'businessContactEmail',
  'stockSymbol',
  'stockExchange',
  'altBusinessIdType',
  'altBusinessId',
  'optionalAttributes',
];

/** Caps of the list fields of a campaign change. */
const CHANGE_LIST_CAPS: Readonly<Record<string, number>> = {
  subUsecases: LIMIT.subUsecases,
  tag: LIMIT.tag,
  mnoIDs: LIMIT.mnoIDs,
};

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkString(
  issues: Issues,
  value: unknown,
  path: string,
  { max, optional = false }: { max: number; optional?: boolean },
): void {
  if (value === undefined) {
    if (!optional) issues.push(`${path}: required`);
    return;
  }
  if (typeof value !== 'string') issues.push(`${path}: expected a string`);
  else if (value.trim().length === 0) issues.push(`${path}: must not be empty`);
  else if (value.length > max) issues.push(`${path}: at most ${max} characters`);
}

/** An array of at most `max` strings of at most `itemMax` characters; counted before any is looked at. */
function checkStringArray(
  issues: Issues,
  value: unknown,
  path: string,
  {
    min = 0,
    max,
    itemMax,
    optional = false,
  }: { min?: number; max: number; itemMax: number; optional?: boolean },
): void {
  if (value === undefined) {
    if (!optional) issues.push(`${path}: required`);
    return;
  }
  if (!Array.isArray(value)) {
    issues.push(`${path}: expected an array of strings`);
    return;
  }
  if (value.length > max) {
    issues.push(`${path}: at most ${max} entries`);
    return;
  }
  if (value.length < min) issues.push(`${path}: at least ${min}`);
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item.trim().length === 0)
      issues.push(`${path}.${i}: expected a non-empty string`);
    else if (item.length > itemMax) issues.push(`${path}.${i}: at most ${itemMax} characters`);
  });
}

/** Names every key of `body` not in `known` (a bounded number of them; the rest counted). */
function checkKnownKeys(issues: Issues, body: Json, known: readonly string[], path: string[] = []): void {
  const unknown = Object.keys(body).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  for (const e of unknownFieldErrors(path, unknown, known))
    issues.push(`${e.path.join('.') || '(root)'}: ${e.message}`);
}

/** Optional attributes: a capped record of strings (at most 512 characters), numbers and booleans. */
function checkOptionalAttributes(issues: Issues, value: unknown, path: string): void {
  if (!isObject(value)) {
    issues.push(`${path}: expected an object`);
    return;
  }
  const names = Object.keys(value);
  if (names.length > LIMIT.optionalAttributes) {
    issues.push(`${path}: at most ${LIMIT.optionalAttributes} optional attributes`);
    return;
  }
  if (names.some((name) => name.length > LIMIT.optionalAttributeName)) {
    issues.push(
      `${path}: an optional attribute name holds at most ${LIMIT.optionalAttributeName} characters`,
    );
    return;
  }
  for (const name of names) {
    const v = value[name];
    if (typeof v === 'string') {
      if (v.length > LIMIT.optionalAttributeString)
        issues.push(`${path}.${name}: at most ${LIMIT.optionalAttributeString} characters`);
    } else if (typeof v !== 'boolean' && (typeof v !== 'number' || !Number.isFinite(v)))
      issues.push(`${path}.${name}: expected a string, number or boolean`);
  }
}

function checkOptionalBoolean(issues: Issues, value: unknown, path: string): void {
  if (value !== undefined && typeof value !== 'boolean') issues.push(`${path}: expected true or false`);
}

/**
 * The request as an object with only the `known` keys, or throws `invalid {what}: ...` with every
 * issue found.
 */
function checked<T>(
  what: string,
  request: unknown,
  known: readonly string[],
  check: (body: Json, issues: Issues) => void,
): T {
  const issues: Issues = [];
  if (!isObject(request)) issues.push('(root): expected an object');
  else {
    checkKnownKeys(issues, request, known);
    check(request, issues);
  }
  if (issues.length > 0) throw new Error(`invalid ${what}: ${issues.join('; ')}`);
  return request as T;
}

/**
 * Brand patch: at least one field, each a brand field; values are judged by the workflow's group
 * rules and the registry client.
 */
function checkPatch(issues: Issues, patch: unknown, path: string): void {
  if (!isObject(patch)) {
    issues.push(`${path}: expected an object`);
    return;
  }
  const fields = Object.keys(patch);
  if (fields.length === 0) issues.push(`${path}: an update needs at least one field`);
  if (fields.length > BRAND_PATCH_FIELDS.length) {
    // Some are unknown: name those (bounded) without looking at any value.
    checkKnownKeys(issues, patch, BRAND_PATCH_FIELDS, [path]);
    return;
  }
  checkKnownKeys(issues, patch, BRAND_PATCH_FIELDS, [path]);
  for (const field of fields) {
    const value = patch[field];
    if (!BRAND_PATCH_FIELDS.includes(field)) continue;
    if (field === 'optionalAttributes') checkOptionalAttributes(issues, value, `${path}.${field}`);
    else if (value === null || typeof value === 'object')
      issues.push(`${path}.${field}: expected a string, number or boolean`);
    else if (typeof value === 'string' && value.length > 2048)
      issues.push(`${path}.${field}: at most 2048 characters`);
  }
}

export function checkCorrectBrandRequest(request: unknown): CorrectBrandRequest {
  return checked('correctBrand request', request, ['patch', 'revet'], (body, issues) => {
    checkPatch(issues, body.patch, 'patch');
    checkOptionalBoolean(issues, body.revet, 'revet');
  });
}

export function checkAppealRequest(request: unknown): AppealRequest & { attachmentUuids: string[] } {
  const known = ['appealCategories', 'attachmentUuids', 'explanation', 'evpId', 'vettingId'];
  const appeal = checked<AppealRequest>('appeal', request, known, (body, issues) => {
    const ids = { itemMax: LIMIT.idLength };
    checkStringArray(issues, body.appealCategories, 'appealCategories', {
      min: 1,
      max: LIMIT.appealCategories,
      ...ids,
    });
    checkStringArray(issues, body.attachmentUuids, 'attachmentUuids', {
      max: LIMIT.attachmentUuids,
      optional: true,
      ...ids,
    });
    checkString(issues, body.explanation, 'explanation', { max: 4000 });
    checkString(issues, body.evpId, 'evpId', { max: LIMIT.idLength, optional: true });
    checkString(issues, body.vettingId, 'vettingId', { max: LIMIT.idLength, optional: true });
  });
  return { ...appeal, attachmentUuids: appeal.attachmentUuids ?? [] };
}

/** A JSON value: strings, finite numbers, booleans, null, arrays and plain objects, nested at most 32 deep. */
function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (isObject(value)) return Object.values(value).every((item) => isJsonValue(item, depth + 1));
  return false;
}

/** A POLITICAL order's payload: a JSON object within its cap that does not redefine the order's fields. */
function checkPoliticalPayload(issues: Issues, body: Json): void {
  const payload = body.politicalPayload;
  if (payload === undefined) return;
  const path = 'politicalPayload';
  if (!isObject(payload) || !isJsonValue(payload)) {
    issues.push(`${path}: expected a JSON object`);
    return;
  }
  if (body.vettingClass !== 'POLITICAL') issues.push(`${path}: only a POLITICAL vet order takes a payload`);
  const clash = ['evpId', 'vettingClass'].filter((key) => Object.hasOwn(payload, key));
  if (clash.length > 0) issues.push(`${path}: may not redefine ${clash.join(', ')}`);
  if (JSON.stringify(payload).length > LIMIT.politicalPayloadChars)
    issues.push(`${path}: at most ${LIMIT.politicalPayloadChars} characters as JSON`);
}

export function checkOrderVetRequest(request: unknown): OrderVetRequest {
  return checked('vet order', request, ['evpId', 'vettingClass', 'politicalPayload'], (body, issues) => {
    checkString(issues, body.evpId, 'evpId', { max: LIMIT.idLength });
    if (!VETTING_CLASSES.includes(body.vettingClass as string))
      issues.push(`vettingClass: expected one of ${VETTING_CLASSES.join(', ')}`);
    checkPoliticalPayload(issues, body);
  });
}

export function checkImportVetRequest(request: unknown): ImportVetRequest {
  const known = ['evpId', 'vettingId', 'vettingToken', 'vettingClass'];
  return checked('vet import', request, known, (body, issues) => {
    checkString(issues, body.evpId, 'evpId', { max: LIMIT.idLength });
    checkString(issues, body.vettingId, 'vettingId', { max: LIMIT.idLength });
    checkString(issues, body.vettingToken, 'vettingToken', { max: LIMIT.vettingToken, optional: true });
    if (body.vettingClass !== undefined && !VETTING_CLASSES.includes(body.vettingClass as string))
      issues.push(`vettingClass: expected one of ${VETTING_CLASSES.join(', ')}`);
  });
}

export function checkCancelRequest(request: unknown): CancelRequest {
  return checked('cancel request', request, ['reason'], (body, issues) => {
    checkString(issues, body.reason, 'reason', { max: 1000 });
  });
}

export function checkApproveFeeRequest(request: unknown): ApproveFeeRequest {
  const known = ['approvedBy', 'maxMonthlyFee', 'signedApproval'];
  return checked('approveFee request', request, known, (body, issues) => {
    checkString(issues, body.approvedBy, 'approvedBy', { max: 200 });
    const max = body.maxMonthlyFee;
    if (max !== undefined && (typeof max !== 'number' || !Number.isFinite(max) || max < 0))
      issues.push('maxMonthlyFee: expected a number of at least 0');
    const signed = body.signedApproval;
    if (signed === undefined) return;
    if (!isObject(signed)) {
      issues.push('signedApproval: expected an object');
      return;
    }
    checkKnownKeys(issues, signed, ['issuedAt', 'nonce', 'signature'], ['signedApproval']);
    checkString(issues, signed.issuedAt, 'signedApproval.issuedAt', { max: 40 });
    checkString(issues, signed.nonce, 'signedApproval.nonce', { max: 100 });
    checkString(issues, signed.signature, 'signedApproval.signature', { max: 200 });
  });
}

export function checkResubmitRequest(request: unknown): ResubmitRequest {
  return checked('resubmit request', request, ['changes'], checkChanges);
}

/** A change of a created campaign: the resubmit's changes, and the needs-action entry it answers. */
export function checkUpdateCampaignRequest(request: unknown): UpdateCampaignRequest {
  return checked('update request', request, ['changes', 'answers'], (body, issues) => {
    checkChanges(body, issues);
    checkString(issues, body.answers, 'answers', { max: 200, optional: true });
  });
}

function checkChanges(body: Json, issues: Issues): void {
  const changes = body.changes;
  if (!isObject(changes)) {
    issues.push('changes: expected an object');
    return;
  }
  const fields = Object.keys(changes);
  if (fields.length === 0) issues.push('changes: an update needs at least one field');
  const known = Object.keys(CAMPAIGN_CHANGE_FIELDS);
  checkKnownKeys(issues, changes, known, ['changes']);
  if (fields.length > known.length) return; // some are unknown, named above; no value is looked at
  for (const field of fields) {
    const value = changes[field];
    const type = Object.hasOwn(CAMPAIGN_CHANGE_FIELDS, field) ? CAMPAIGN_CHANGE_FIELDS[field] : undefined;
    const path = `changes.${field}`;
    const max = CHANGE_LIST_CAPS[field] ?? 0;
    if (type === undefined) continue;
    if (type === 'boolean') checkOptionalBoolean(issues, value, path);
    else if (type === 'string[]')
      checkStringArray(issues, value, path, { max, itemMax: field === 'tag' ? LIMIT.tagLength : 255 });
    else if (type === 'integer[]') {
      if (!Array.isArray(value)) issues.push(`${path}: expected an array of integers`);
      else if (value.length > max) issues.push(`${path}: at most ${max} entries`);
      else if (!value.every((n) => Number.isInteger(n)))
        issues.push(`${path}: expected an array of integers`);
    } else checkString(issues, value, path, { max: 4096 });
  }
}

export function checkShareWithRequest(request: unknown): ShareWithRequest {
  return checked('shareWith request', request, ['upstreamCnpId'], (body, issues) => {
    checkString(issues, body.upstreamCnpId, 'upstreamCnpId', { max: 100 });
  });
}

/** A campaign's cancel request has the brand's shape and rules. */
export const checkCampaignCancelRequest: (request: unknown) => CampaignCancelRequest = checkCancelRequest;

export function checkAcknowledgeRequest(request: unknown): AcknowledgeRequest {
  return checked('acknowledge request', request, ['key'], (body, issues) => {
    checkString(issues, body.key, 'key', { max: 200 });
  });
}

export function checkConfirmDcaCompleteRequest(request: unknown): ConfirmDcaCompleteRequest {
  return checked('confirmDcaComplete request', request, ['confirmedBy', 'note'], (body, issues) => {
    checkString(issues, body.confirmedBy, 'confirmedBy', { max: 200 });
    checkString(issues, body.note, 'note', { max: 1000, optional: true });
  });
}
