/**
 * `useCaseSupport`: `GET /campaignBuilder/brand/{brandId}/usecase/{usecase}` "tells whether the brand
 * supports the use case; response shape: not shown". Read safely under every reading: a 2xx whose
 * JSON does not explicitly say no is supported; a 4xx (400, 404, 422) is "not yet", returned; 401,
 * 429, 5xx and 590 throw, as every read does (the activity's retries and the workflow's fault backoff
 * take them).
 */
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { useCaseAnswerSupported } from '../../src/registry/brand-endpoints.js';
import { RegistryClient } from '../../src/registry/client.js';
import { RegistryError } from '../../src/registry/errors.js';

const ORIGIN = 'https://registry.builder.test';

function clientAnswering(status: number, body: string | undefined) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const paths: string[] = [];
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: 'GET' })
    .reply((opts) => {
      paths.push(opts.path);
      return {
        statusCode: status,
        data: body ?? '',
        responseOptions: { headers: { 'content-type': 'application/json' } },
      };
    })
    .persist();
  const client = new RegistryClient({
    environment: 'staging',
    baseUrl: ORIGIN,
    allowedHosts: ['registry.builder.test'],
    apiKey: 'k',
    apiSecret: 's',
    rateLimits: false,
    dispatcher: agent,
    maxRateLimitRetries: 0,
  });
  return { client, paths };
}

describe('the builder answer, read safely', () => {
  it.each([
    ['{}', true],
    ['{"usecase":"SOLE_PROPRIETOR","qualified":true,"reasons":[]}', true],
    ['{"supported":true}', true],
    ['true', true],
    ['[]', true],
    ['"SOLE_PROPRIETOR"', true],
    ['{"something":"else"}', true],
    ['{"qualified":false,"reasons":["verification pending"]}', false],
    ['{"supported":false}', false],
    ['false', false],
    ['[{"usecase":"SOLE_PROPRIETOR","qualified":false}]', false],
    ['[{"usecase":"MARKETING","qualified":false}]', true],
    ['{"records":[{"usecase":"SOLE_PROPRIETOR","supported":false}]}', false],
  ])('%s → supported %s', (json, supported) => {
    expect(useCaseAnswerSupported(JSON.parse(json), 'SOLE_PROPRIETOR')).toBe(supported);
  });

  it('a 200 with no body is supported; the path names brand and use case', async () => {
    const { client, paths } = clientAnswering(200, undefined);
    await expect(client.useCaseSupport('B1', 'SOLE_PROPRIETOR')).resolves.toEqual({
      supported: true,
      status: 200,
    });
    expect(paths).toEqual(['/v2/campaignBuilder/brand/B1/usecase/SOLE_PROPRIETOR']);
  });

  it("a 200 saying no carries the registry's reasons", async () => {
    const { client } = clientAnswering(200, '{"qualified":false,"reasons":["OTP not completed"]}');
    await expect(client.useCaseSupport('B1', 'SOLE_PROPRIETOR')).resolves.toEqual({
      supported: false,
      status: 200,
      reason: 'OTP not completed',
    });
  });

  it.each([400, 404, 422])('a %i is "not yet", returned, not thrown', async (status) => {
    const { client } = clientAnswering(status, '[{"code":1,"description":"not verified","fields":[]}]');
    const answer = await client.useCaseSupport('B1', 'SOLE_PROPRIETOR');
    expect(answer).toMatchObject({ supported: false, status });
  });

  it.each([
    [401, '{}'],
    [429, '{}'],
    [500, '{}'],
    [503, ''],
    [400, '[{"code":590,"description":"internal system error","fields":[]}]'],
  ])('a %i (%s) throws like every read', async (status, body) => {
    const { client } = clientAnswering(status, body);
    await expect(client.useCaseSupport('B1', 'SOLE_PROPRIETOR')).rejects.toBeInstanceOf(RegistryError);
  });
});
