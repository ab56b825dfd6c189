/**
 * Registry error codes the simulator answers with. The spec fixes only 590 (internal error); every other
 * code is the simulator's own, stable and documented in docs/simulator.md. Bodies are always a JSON array
 * of `{ code, description, fields }`.
 */
export const ErrorCode = {
  MALFORMED_JSON: 501,
  VALIDATION: 502,
  NOT_FOUND: 503,
  ENTITY_TYPE_NOT_ALLOWED: 504,
  BRAND_UNVERIFIED: 505,
  CONTACT_NOT_VERIFIED: 506,
  SUB_USECASE_COUNT: 507,
  NO_QUALIFYING_MNO: 508,
  DUPLICATE_REFERENCE_ID: 509,
  UPDATE_GROUP_LOCKED: 510,
  UPDATE_TOO_FREQUENT: 511,
  POLITICAL_VET_NOT_ALLOWED: 512,
  SHARING_PENDING: 513,
  SHARING_ALREADY_ACCEPTED: 514,
  SHARING_RESUBMIT_UNCHANGED: 515,
  CAMPAIGN_NOT_ACTIVE: 516,
  USECASE_NOT_ALLOWED: 517,
  VETTING_NOT_SUPPORTED: 518,
  UNKNOWN_CNP: 519,
  UNAUTHORIZED: 521,
  RATE_LIMITED: 522,
  UNKNOWN_ROUTE: 523,
  INTERNAL: 590,
} as const;

export interface ErrorItem {
  code: number;
  description: string;
  fields: string[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly items: ErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(items.map((i) => i.description).join('; '));
  }
}

export function badRequest(code: number, description: string, fields: string[] = []): ApiError {
  return new ApiError(400, [{ code, description, fields }]);
}

export function notFound(what: string, id: string, field: string): ApiError {
  return new ApiError(404, [
    { code: ErrorCode.NOT_FOUND, description: `${what} '${id}' not found`, fields: [field] },
  ]);
}

/** Turns zod issues into error items that name the failing field (dot path). */
export function validationError(issues: { path: PropertyKey[]; message: string }[]): ApiError {
  return new ApiError(
    400,
    issues.map((issue) => {
      const field = issue.path.map(String).join('.') || '(body)';
      return { code: ErrorCode.VALIDATION, description: `${field}: ${issue.message}`, fields: [field] };
    }),
  );
}
