/**
 * The base-URL guard per environment, the client cache, and the request/response schemas
 * (entity-type rules, sub-use-case count, optional attribute limits, loose responses).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeRegistryClients, RegistryClient, registryClientFor } from '../../src/registry/client.js';
import { checkBaseUrl, configureEnvironmentHosts } from '../../src/registry/environments.js';
import { RegistryConfigurationError } from '../../src/registry/errors.js';
import {
  AppealSchema,
  BrandRegistrationSchema,
  BrandSchema,
  BrandUpdateSchema,
  CampaignCreationSchema,
  CampaignUpdateSchema,
  contactVerificationRequired,
  optionalAttributeIssues,
  subUsecaseIssues,
  VetImportSchema,
  VetOrderSchema,
  VettingProviderSchema,
} from '../../src/registry/schemas.js';

afterEach(async () => {
  configureEnvironmentHosts({ qa: [], staging: [], preview: [], production: [] });
  await closeRegistryClients();
});

const creds = { apiKey: 'k', apiSecret: 's' };

describe('environments', () => {
  it('local talks to loopback only, over http or https', () => {
    expect(checkBaseUrl('local', 'http://127.0.0.1:8480').baseUrl).toBe('http://127.0.0.1:8480');
    expect(checkBaseUrl('local', 'http://localhost:8480/v2/').baseUrl).toBe('http://localhost:8480');
    expect(checkBaseUrl('local', 'http://[::1]:8480').origin).toBe('http://[::1]:8480');
    expect(() => checkBaseUrl('local', 'https://api.registry.example')).toThrow(RegistryConfigurationError);
  });

  it('remote environments need a configured host, https, and a host not claimed by another environment', () => {
    expect(() => checkBaseUrl('production', 'https://api.registry.example')).toThrow(
      /not a known production/,
    );
    configureEnvironmentHosts({
      production: ['api.registry.example'],
      staging: ['staging.registry.example'],
    });
    expect(checkBaseUrl('production', 'https://api.registry.example').baseUrl).toBe(
      'https://api.registry.example',
    );
    // staging credentials never go to the production host, nor production's to staging's
    expect(() => checkBaseUrl('staging', 'https://api.registry.example')).toThrow(
      /refusing to send staging credentials/,
    );
    expect(() => checkBaseUrl('production', 'https://staging.registry.example')).toThrow(
      RegistryConfigurationError,
    );
    expect(() => checkBaseUrl('production', 'http://api.registry.example')).toThrow(/https/);
    expect(() => checkBaseUrl('production', 'https://user:pw@api.registry.example')).toThrow(/credentials/);
    configureEnvironmentHosts({ qa: ['api.registry.example'] });
    expect(() => checkBaseUrl('production', 'https://api.registry.example')).toThrow(/configured for qa/);
  });

  it('the client constructor applies the guard', () => {
    expect(
      () => new RegistryClient({ environment: 'qa', baseUrl: 'https://evil.example', ...creds }),
    ).toThrow(RegistryConfigurationError);
    expect(
      () => new RegistryClient({ environment: 'local', baseUrl: 'http://10.0.0.5:8480', ...creds }),
    ).toThrow(/loopback/);
  });

  it('registryClientFor returns one client per account configuration', () => {
    const a = registryClientFor({ environment: 'local', baseUrl: 'http://127.0.0.1:1', ...creds });
    const b = registryClientFor({ environment: 'local', baseUrl: 'http://127.0.0.1:1', ...creds });
    const c = registryClientFor({
      environment: 'local',
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k2',
      apiSecret: 's',
    });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});

const privateBrand = {
  referenceId: 'acme-1',
  entityType: 'PRIVATE_PROFIT',
  displayName: 'Acme',
  companyName: 'Acme Inc',
  ein: '123',
  country: 'US',
  email: 'a@acme.example',
};

function paths(result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }): string[] {
  return (result.error?.issues ?? []).map((i) => i.path.map(String).join('.')).sort();
}

describe('brand registration rules', () => {
  it('accepts a private company', () => {
    expect(BrandRegistrationSchema.safeParse(privateBrand).success).toBe(true);
  });
  it('PUBLIC_PROFIT needs businessContactEmail, stockSymbol and stockExchange', () => {
    const r = BrandRegistrationSchema.safeParse({
      ...privateBrand,
      entityType: 'PUBLIC_PROFIT',
      country: 'DE',
    });
    expect(paths(r)).toEqual(['businessContactEmail', 'stockExchange', 'stockSymbol']);
    const ok = BrandRegistrationSchema.safeParse({
      ...privateBrand,
      entityType: 'PUBLIC_PROFIT',
      country: 'DE',
      businessContactEmail: 'cfo@acme.example',
      stockSymbol: 'ACME',
      stockExchange: 'XETRA',
    });
    expect(ok.success).toBe(true);
  });
  it('NON_PROFIT only for US or a US EIN', () => {
    expect(
      paths(BrandRegistrationSchema.safeParse({ ...privateBrand, entityType: 'NON_PROFIT', country: 'GB' })),
    ).toEqual(['country']);
    expect(
      BrandRegistrationSchema.safeParse({
        ...privateBrand,
        entityType: 'NON_PROFIT',
        country: 'GB',
        einIssuingCountry: 'US',
      }).success,
    ).toBe(true);
  });
  it('GOVERNMENT only US; SOLE_PROPRIETOR only US or CA, with a mobile phone (and needs no company or EIN)', () => {
    expect(
      paths(BrandRegistrationSchema.safeParse({ ...privateBrand, entityType: 'GOVERNMENT', country: 'CA' })),
    ).toEqual(['country']);
    const sole = {
      referenceId: 'sole-1',
      entityType: 'SOLE_PROPRIETOR',
      displayName: 'Jo',
      country: 'CA',
      email: 'jo@x.example',
      mobilePhone: '+14165550123',
    };
    expect(BrandRegistrationSchema.safeParse(sole).success).toBe(true);
    expect(paths(BrandRegistrationSchema.safeParse({ ...sole, country: 'MX' }))).toEqual(['country']);
    const { mobilePhone: _none, ...withoutPhone } = sole;
    expect(paths(BrandRegistrationSchema.safeParse(withoutPhone))).toEqual(['mobilePhone']);
  });
  it('referenceId is required and must match the reference pattern', () => {
    const { referenceId: _drop, ...noRef } = privateBrand;
    expect(paths(BrandRegistrationSchema.safeParse(noRef))).toEqual(['referenceId']);
    expect(paths(BrandRegistrationSchema.safeParse({ ...privateBrand, referenceId: 'a/b' }))).toEqual([
      'referenceId',
    ]);
  });
  it('STRING optional attributes hold at most 512 characters', () => {
    const long = 'x'.repeat(513);
    expect(paths(BrandUpdateSchema.safeParse({ optionalAttributes: { note: long } }))).toEqual([
      'optionalAttributes.note',
    ]);
    expect(BrandUpdateSchema.safeParse({ optionalAttributes: { note: 'x'.repeat(512) } }).success).toBe(true);
    const names = [
      { id: 'note', dataType: 'STRING' },
      { id: 'count', dataType: 'INTEGER' },
      { id: 'flag', dataType: 'BOOLEAN' },
    ];
    expect(
      optionalAttributeIssues({ note: long, count: 1.5, flag: 'yes', other: 1 }, names).map((i) =>
        i.path.join('.'),
      ),
    ).toEqual([
      'optionalAttributes.note',
      'optionalAttributes.count',
      'optionalAttributes.flag',
      'optionalAttributes.other',
    ]);
  });
  it('contact verification: PUBLIC_PROFIT always, GOVERNMENT from 21 January 2027', () => {
    expect(contactVerificationRequired('PUBLIC_PROFIT', new Date('2026-01-01'))).toBe(true);
    expect(contactVerificationRequired('GOVERNMENT', new Date('2027-01-20T23:59:59Z'))).toBe(false);
    expect(contactVerificationRequired('GOVERNMENT', new Date('2027-01-21T00:00:00Z'))).toBe(true);
  });
});

describe('campaign, vet and appeal orders', () => {
  const useCases = {
    MIXED: { minSubUsecases: 2, maxSubUsecases: 5 },
    MARKETING: { minSubUsecases: 0, maxSubUsecases: 0 },
  };
  it('sub-use-case count lies between the use case min and max', () => {
    const base = { referenceId: 'c1', brandId: 'B1', usecase: 'MIXED', description: 'd' };
    const parsed = CampaignCreationSchema.parse(base);
    expect(parsed.subUsecases).toEqual([]);
    expect(subUsecaseIssues(parsed, useCases)[0]?.path).toEqual(['subUsecases']);
    expect(subUsecaseIssues({ ...parsed, subUsecases: ['A', 'B'] }, useCases)).toEqual([]);
    expect(
      subUsecaseIssues({ ...parsed, subUsecases: ['A', 'B', 'C', 'D', 'E', 'F'] }, useCases),
    ).toHaveLength(1);
    expect(subUsecaseIssues({ ...parsed, usecase: 'NOPE' }, useCases)[0]?.path).toEqual(['usecase']);
  });
  it('createCampaign refuses a bad sub-use-case count before sending when given the use-case map', async () => {
    const client = new RegistryClient({
      environment: 'local',
      baseUrl: 'http://127.0.0.1:9',
      ...creds,
      rateLimits: false,
    });
    await expect(
      client.createCampaign(
        { referenceId: 'c1', brandId: 'B1', usecase: 'MIXED', description: 'd' },
        { useCases },
      ),
    ).rejects.toMatchObject({ name: 'RegistryRequestInvalidError', issues: [{ path: 'subUsecases' }] });
    await client.close();
  });
  it('a campaign update does not default subUsecases (it would wipe them)', () => {
    expect(CampaignUpdateSchema.parse({ description: 'x' })).toEqual({ description: 'x' });
    expect(CampaignUpdateSchema.safeParse({}).success).toBe(false);
  });
  it('vet order, vet import and appeal', () => {
    expect(VetOrderSchema.safeParse({ evpId: 'AEGIS', vettingClass: 'GOLD' }).success).toBe(false);
    expect(VetImportSchema.safeParse({ evpId: 'AEGIS' }).success).toBe(false);
    expect(AppealSchema.parse({ appealCategories: ['X'], explanation: 'e' }).attachmentUuids).toEqual([]);
    expect(AppealSchema.safeParse({ appealCategories: [], explanation: 'e' }).success).toBe(false);
  });
});

describe('response schemas', () => {
  it('keep unknown fields', () => {
    expect(BrandSchema.parse({ brandId: 'B1', newThing: [1] })).toEqual({ brandId: 'B1', newThing: [1] });
  });
  it('parse the vetting instruction JSON string and name the field when it is broken', () => {
    const ok = VettingProviderSchema.parse({
      evpId: 'E',
      vettingInstruction: '{"newVet":{"supported":true,"price":{"STANDARD":40}}}',
    });
    expect(ok.vettingInstruction?.newVet?.price).toEqual({ STANDARD: 40 });
    const bad = VettingProviderSchema.safeParse({ evpId: 'E', vettingInstruction: '{not json' });
    expect(paths(bad)).toEqual(['vettingInstruction']);
  });
});

describe('configuration from the environment', () => {
  it('TCR_REGISTRY_<ENV>_HOSTS and TCR_REGISTRY_TIMEOUT_MS are read, naming a bad variable', async () => {
    const { registryEnvironmentSettings } = await import('../../src/registry/config.js');
    const problems: string[] = [];
    const settings = registryEnvironmentSettings(
      {
        TCR_REGISTRY_PRODUCTION_HOSTS: 'API.registry.example, dr.registry.example',
        TCR_REGISTRY_TIMEOUT_MS: '5000',
      },
      problems,
    );
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      hosts: {
        qa: [],
        staging: [],
        preview: [],
        production: ['api.registry.example', 'dr.registry.example'],
      },
      timeoutMs: 5000,
    });
    const bad: string[] = [];
    registryEnvironmentSettings({ TCR_REGISTRY_QA_HOSTS: 'https://qa.example/v2' }, bad);
    expect(bad).toEqual([
      expect.stringMatching(/^TCR_REGISTRY_QA_HOSTS: expected comma-separated host names/),
    ]);
  });

  it("checkBaseUrl takes the environments' host lists as an argument, and wants https for remote environments", () => {
    const hosts = { production: ['api.registry.example'], qa: ['qa.registry.example'] };
    expect(checkBaseUrl('production', 'https://api.registry.example', [], hosts).baseUrl).toBe(
      'https://api.registry.example',
    );
    expect(() =>
      checkBaseUrl('production', 'https://qa.registry.example', ['qa.registry.example'], hosts),
    ).toThrow(/configured for qa/);
    expect(() => checkBaseUrl('qa', 'http://127.0.0.1:8480', ['127.0.0.1'])).toThrow(/qa must use https/);
  });
});
