/**
 * The registry's brand and vetting endpoints: register (create-once by `referenceId`), find by
 * reference, list, read, update, revet, appeal, and order, import and list external vets. A layer of
 * `RegistryClient` (./client-core.ts).
 */

import { z } from 'zod';
import { isRecord } from '../common/is-record.js';
import { type CallOptions, checked, segment } from './client-core.js';
import { RegistryError, RegistryResponseInvalidError } from './errors.js';
import { RegistryReferenceEndpoints } from './reference-endpoints.js';
import {
  AnyJsonSchema,
  type AppealInput,
  AppealSchema,
  type Brand,
  BrandPageSchema,
  type BrandQuery,
  type BrandRegistrationInput,
  BrandRegistrationSchema,
  BrandSchema,
  type BrandUpdate,
  BrandUpdateSchema,
  type ExternalVet,
  ExternalVetSchema,
  type Page,
  type VetImport,
  VetImportSchema,
  type VetOrder,
  VetOrderSchema,
} from './schemas.js';
import { zodIssues } from './transport.js';

export type RegisteredBrand = Brand & { alreadyExisted: boolean };

/** What `GET /campaignBuilder/brand/{brandId}/usecase/{usecase}` says, read safely (`useCaseSupport`). */
export interface UseCaseSupport {
  supported: boolean;
  /** The HTTP status that answered (2xx, or the 4xx that means "not (yet)"). */
  status: number;
  /** Why not, in the registry's words when it gave any. */
  reason?: string;
}

/** Whether a record of the builder's answer says no, explicitly: `qualified: false` or `supported: false`. */
const saysNo = (value: unknown, usecase: string): boolean =>
  isRecord(value) &&
  (value.qualified === false || value.supported === false) &&
  (typeof value.usecase !== 'string' || value.usecase === usecase);

/**
 * The builder's 2xx answer for `usecase` (its shape is "not shown"): supported unless the JSON
 * explicitly says no, as the answer itself (`false`, or an object with `qualified: false` or
 * `supported: false`) or as an entry of a list for this use case. No body, `{}`, `true` or an
 * unknown shape: supported.
 */
export function useCaseAnswerSupported(answer: unknown, usecase: string): boolean {
  if (answer === false) return false;
  if (Array.isArray(answer)) return !answer.some((entry) => saysNo(entry, usecase));
  if (isRecord(answer) && Array.isArray(answer.records))
    return !saysNo(answer, usecase) && !answer.records.some((entry) => saysNo(entry, usecase));
  return !saysNo(answer, usecase);
}

/** Why the builder said no, from its answer's `reasons` when it gave any. */
function reasonOf(answer: unknown): string | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.reasons)) return undefined;
  const reasons = answer.reasons.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)));
  return reasons.length > 0 ? reasons.join('; ').slice(0, 500) : undefined;
}

/**
 * A campaign-builder answer that means "the brand cannot support this (yet)": a 4xx the client does not
 * retry, other than 401 and 429. The spec shows neither the builder's shape nor its error codes, so a
 * registry may say no with a 400 (the strict simulator does) as well as with `qualified: false`.
 */
export function isBuilderRefusal(error: unknown): error is RegistryError & { status: number } {
  if (!(error instanceof RegistryError) || error.retryable) return false;
  const status = error.status;
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 429;
}

export class RegistryBrandEndpoints extends RegistryReferenceEndpoints {
  /**
   * `POST /brand/nonBlocking`, idempotent by `referenceId`: returns the existing brand with that
   * reference (`alreadyExisted: true`) instead of registering a second one, and after an ambiguous
   * failure (timeout, 5xx, connection lost after sending) looks up again before retrying.
   */
  async registerBrand(input: BrandRegistrationInput, opts: CallOptions = {}): Promise<RegisteredBrand> {
    const brand = checked('registerBrand', BrandRegistrationSchema, input);
    return this.createOnce(
      () => this.findBrandByReference(brand.referenceId, opts),
      async () =>
        this.send('POST', '/brand/nonBlocking', {
          body: brand,
          schema: BrandSchema,
          signal: opts.signal,
          idempotentByReference: true,
        }),
      (existing): RegisteredBrand => ({ ...existing, alreadyExisted: true }),
      (created): RegisteredBrand => ({ ...created, alreadyExisted: false }),
    );
  }

  /** The brand registered with this `referenceId`, if any (see docs: server filter, client-side fallback). */
  async findBrandByReference(referenceId: string, opts: CallOptions = {}): Promise<Brand | undefined> {
    return this.findByReference(referenceId, (query) => this.listBrands(query, opts));
  }

  listBrands(query: BrandQuery = {}, opts: CallOptions = {}): Promise<Page<Brand>> {
    return this.get('/brand', BrandPageSchema, { ...query }, opts);
  }

  /** Every brand matching the filters, page by page (starting at `query.page`, default 1). */
  brands(query: BrandQuery = {}, opts: CallOptions = {}): AsyncGenerator<Brand> {
    return this.paginate((page) => this.listBrands(page, opts), query);
  }

  getBrand(brandId: string, opts: CallOptions = {}): Promise<Brand> {
    return this.get(`/brand/${segment(brandId, 'brandId')}`, BrandSchema, undefined, opts);
  }

  updateBrand(brandId: string, patch: BrandUpdate, opts: CallOptions = {}): Promise<Brand> {
    const body = checked('updateBrand', BrandUpdateSchema, patch);
    return this.send('PUT', `/brand/${segment(brandId, 'brandId')}`, {
      body,
      schema: BrandSchema,
      signal: opts.signal,
    });
  }

  revetBrand(brandId: string, opts: CallOptions = {}): Promise<Brand> {
    return this.send('PUT', `/brand/${segment(brandId, 'brandId')}/revet`, {
      schema: BrandSchema,
      signal: opts.signal,
    });
  }

  async appealBrand(brandId: string, appeal: AppealInput, opts: CallOptions = {}): Promise<void> {
    const body = checked('appealBrand', AppealSchema, appeal);
    await this.send('POST', `/brand/${segment(brandId, 'brandId')}/appeal`, {
      body,
      schema: undefined,
      signal: opts.signal,
    });
  }

  /** `POST /brand/{id}/externalVetting`: order a new vet (billed by some providers; not retried on ambiguity). */
  orderExternalVet(brandId: string, order: VetOrder, opts: CallOptions = {}): Promise<ExternalVet> {
    const { politicalPayload, ...fields } = checked('orderExternalVet', VetOrderSchema, order);
    return this.send('POST', `/brand/${segment(brandId, 'brandId')}/externalVetting`, {
      // A political order's payload: its members beside evpId and vettingClass (the spec shows none).
      body: { ...politicalPayload, ...fields },
      schema: ExternalVetSchema,
      signal: opts.signal,
    });
  }

  /** `PUT /brand/{id}/externalVetting`: import an existing vet. */
  importExternalVet(brandId: string, vet: VetImport, opts: CallOptions = {}): Promise<ExternalVet> {
    const body = checked('importExternalVet', VetImportSchema, vet);
    return this.send('PUT', `/brand/${segment(brandId, 'brandId')}/externalVetting`, {
      body,
      schema: ExternalVetSchema,
      signal: opts.signal,
    });
  }

  /**
   * `GET /campaignBuilder/brand/{id}/usecase/{usecase}`: "tells whether the brand supports the use
   * case; response shape: not shown". Read safely under every reading: a 2xx whose JSON does not
   * explicitly say no is supported; a 4xx other than 401 and 429 (400, 404, 422 ...) means not (yet)
   * and is returned, not thrown. 401, 429, 5xx (and 590), network and timeouts throw as every read
   * does, so callers retry them like other reads.
   */
  async useCaseSupport(brandId: string, usecase: string, opts: CallOptions = {}): Promise<UseCaseSupport> {
    const path = `/campaignBuilder/brand/${segment(brandId, 'brandId')}/usecase/${segment(usecase, 'usecase')}`;
    try {
      const answer = await this.get(path, AnyJsonSchema, undefined, opts);
      const supported = useCaseAnswerSupported(answer, usecase);
      const reason = supported ? undefined : reasonOf(answer);
      return { supported, status: 200, ...(reason ? { reason } : {}) };
    } catch (error) {
      if (!isBuilderRefusal(error)) throw error;
      return { supported: false, status: error.status, reason: error.message.slice(0, 500) };
    }
  }

  /** `GET /brand/{id}/externalVetting` (shape not in the spec): an array, or a single record, or `{records}`. */
  async listExternalVets(brandId: string, opts: CallOptions = {}): Promise<ExternalVet[]> {
    const raw = await this.get(
      `/brand/${segment(brandId, 'brandId')}/externalVetting`,
      z.unknown(),
      undefined,
      opts,
    );
    const list = Array.isArray(raw)
      ? raw
      : raw && typeof raw === 'object' && Array.isArray((raw as { records?: unknown }).records)
        ? (raw as { records: unknown[] }).records
        : raw == null
          ? []
          : [raw];
    const parsed = ExternalVetSchema.array().safeParse(list);
    if (!parsed.success)
      throw new RegistryResponseInvalidError(zodIssues(parsed.error), {
        method: 'GET',
        path: `/v2/brand/${brandId}/externalVetting`,
      });
    return parsed.data;
  }
}
