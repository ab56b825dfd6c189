/**
 * Checks of operator requests inside the workflows (update validators and handlers), without zod.
 *
 * Operator requests are parsed with their zod schemas at the edge: the typed API (src/orders) and the
 * CLI parse them before they send the update (./brand-messages.ts and ./campaign-messages.ts hold
 * the schemas). Inside the workflow these checks refuse, with the field named, what a raw Temporal
 * client could still send: a missing or mistyped field, an empty patch, a string over its length. The
 * registry client validates every request body once more before the call.
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
} from './brand-messages.js';
import type {
  AcknowledgeRequest,
  ApproveFeeRequest,
  CampaignCancelRequest,
  ResubmitRequest,
  ShareWithRequest,
} from './campaign-messages.js';

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

function checkStringArray(
  issues: Issues,
  value: unknown,
  path: string,
  { min = 0, optional = false }: { min?: number; optional?: boolean },
): void {
  if (value === undefined) {
    if (!optional) issues.push(`${path}: required`);
    return;
  }
  if (!Array.isArray(value)) {
    issues.push(`${path}: expected an array of strings`);
    return;
  }
  if (value.length < min) issues.push(`${path}: at least ${min}`);
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item.trim().length === 0)
      issues.push(`${path}.${i}: expected a non-empty string`);
  });
}

function checkOptionalBoolean(issues: Issues, value: unknown, path: string): void {
  if (value !== undefined && typeof value !== 'boolean') issues.push(`${path}: expected true or false`);
}

/** The request as an object, or throws `invalid {what}: ...` with every issue found. */
function checked<T>(what: string, request: unknown, check: (body: Json, issues: Issues) => void): T {
  const issues: Issues = [];
  if (!isObject(request)) issues.push('(root): expected an object');
  else check(request, issues);
  if (issues.length > 0) throw new Error(`invalid ${what}: ${issues.join('; ')}`);
  return request as T;
}

/** Brand patch: at least one field; field names and values are judged by the workflow's group rules and the registry client. */
function checkPatch(issues: Issues, patch: unknown, path: string): void {
  if (!isObject(patch)) {
    issues.push(`${path}: expected an object`);
    return;
  }
  if (Object.keys(patch).length === 0) issues.push(`${path}: an update needs at least one field`);
  for (const [field, value] of Object.entries(patch)) {
    if (value === null || (typeof value === 'object' && field !== 'optionalAttributes'))
      issues.push(`${path}.${field}: expected a string, number or boolean`);
    else if (typeof value === 'string' && value.length > 2048)
      issues.push(`${path}.${field}: at most 2048 characters`);
  }
}

export function checkCorrectBrandRequest(request: unknown): CorrectBrandRequest {
  return checked('correctBrand request', request, (body, issues) => {
    checkPatch(issues, body.patch, 'patch');
    checkOptionalBoolean(issues, body.revet, 'revet');
  });
}

export function checkAppealRequest(request: unknown): AppealRequest & { attachmentUuids: string[] } {
  const appeal = checked<AppealRequest>('appeal', request, (body, issues) => {
    checkStringArray(issues, body.appealCategories, 'appealCategories', { min: 1 });
    checkStringArray(issues, body.attachmentUuids, 'attachmentUuids', { optional: true });
    checkString(issues, body.explanation, 'explanation', { max: 4000 });
    checkString(issues, body.evpId, 'evpId', { max: 255, optional: true });
    checkString(issues, body.vettingId, 'vettingId', { max: 255, optional: true });
  });
  return { ...appeal, attachmentUuids: appeal.attachmentUuids ?? [] };
}

export function checkOrderVetRequest(request: unknown): OrderVetRequest {
  return checked('vet order', request, (body, issues) => {
    checkString(issues, body.evpId, 'evpId', { max: 255 });
    if (!VETTING_CLASSES.includes(body.vettingClass as string))
      issues.push(`vettingClass: expected one of ${VETTING_CLASSES.join(', ')}`);
  });
}

export function checkImportVetRequest(request: unknown): ImportVetRequest {
  return checked('vet import', request, (body, issues) => {
    checkString(issues, body.evpId, 'evpId', { max: 255 });
    checkString(issues, body.vettingId, 'vettingId', { max: 255 });
    checkString(issues, body.vettingToken, 'vettingToken', { max: 2048, optional: true });
  });
}

export function checkCancelRequest(request: unknown): CancelRequest {
  return checked('cancel request', request, (body, issues) => {
    checkString(issues, body.reason, 'reason', { max: 1000 });
  });
}

export function checkApproveFeeRequest(request: unknown): ApproveFeeRequest {
  return checked('approveFee request', request, (body, issues) => {
    checkString(issues, body.approvedBy, 'approvedBy', { max: 200 });
    const max = body.maxMonthlyFee;
    if (max !== undefined && (typeof max !== 'number' || !Number.isFinite(max) || max < 0))
      issues.push('maxMonthlyFee: expected a number of at least 0');
  });
}

export function checkResubmitRequest(request: unknown): ResubmitRequest {
  return checked('resubmit request', request, (body, issues) => {
    const changes = body.changes;
    if (!isObject(changes)) {
      issues.push('changes: expected an object');
      return;
    }
    if (Object.keys(changes).length === 0) issues.push('changes: an update needs at least one field');
    for (const [field, value] of Object.entries(changes)) {
      const type = CAMPAIGN_CHANGE_FIELDS[field];
      const path = `changes.${field}`;
      if (type === undefined) issues.push(`${path}: not a campaign field`);
      else if (type === 'boolean') checkOptionalBoolean(issues, value, path);
      else if (type === 'string[]') checkStringArray(issues, value, path, {});
      else if (type === 'integer[]') {
        if (!Array.isArray(value) || !value.every((n) => Number.isInteger(n)))
          issues.push(`${path}: expected an array of integers`);
      } else checkString(issues, value, path, { max: 4096 });
    }
  });
}

export function checkShareWithRequest(request: unknown): ShareWithRequest {
  return checked('shareWith request', request, (body, issues) => {
    checkString(issues, body.upstreamCnpId, 'upstreamCnpId', { max: 100 });
  });
}

/** A campaign's cancel request has the brand's shape and rules. */
export const checkCampaignCancelRequest: (request: unknown) => CampaignCancelRequest = checkCancelRequest;

export function checkAcknowledgeRequest(request: unknown): AcknowledgeRequest {
  return checked('acknowledge request', request, (body, issues) => {
    checkString(issues, body.key, 'key', { max: 200 });
  });
}
