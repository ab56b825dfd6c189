/**
 * The registry's brand and vetting endpoints: register (create-once by `referenceId`), find by
 * reference, list, read, update, revet, appeal, and order, import and list external vets. A layer of
 * `RegistryClient` (./client-core.ts).
 */
import { z } from 'zod';
import { type CallOptions, checked, segment } from './client-core.js';
import { RegistryResponseInvalidError } from './errors.js';
import { RegistryReferenceEndpoints } from './reference-endpoints.js';
import {
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
    const body = checked('orderExternalVet', VetOrderSchema, order);
    return this.send('POST', `/brand/${segment(brandId, 'brandId')}/externalVetting`, {
      body,
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
