/**
 * The reference-list cache (src/activities/reference-lists.ts), on a fake client and a clock the test
 * moves: one read per list while it is fresh, a re-read after an hour, one re-read for a refusing
 * answer in a list older than five minutes, one shared read for concurrent lookups, `/enum/cnp` in
 * any shape, and a `vettingInstruction` that cannot be read taken as "unknown".
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  createReferenceListActivities,
  offerAllows,
  parseVettingInstruction,
  type ReferenceListClient,
  ReferenceLists,
} from '../../src/activities/reference-lists.js';
import { RegistryFailureTypes } from '../../src/contracts/activity-types.js';
import type { RegistryClient } from '../../src/registry/client.js';
import { RegistryAbortedError, RegistryResponseInvalidError } from '../../src/registry/errors.js';

const instruction = (newVet: boolean, importVet: boolean) =>
  JSON.stringify({
    importVet: { supported: importVet, parameters: {}, info: '' },
    newVet: { supported: newVet, price: { STANDARD: 41.5 }, waitTime: '48h', info: '' },
  });

const PROVIDERS: unknown[] = [
  {
    evpId: 'AEGIS',
    displayName: 'Aegis',
    registryBillable: true,
    vettingClasses: ['STANDARD', 'ENHANCED', 'POLITICAL'],
    vettingInstruction: instruction(true, true),
  },
  {
    evpId: 'WMC',
    vettingClasses: ['STANDARD', 'ENHANCED'],
    vettingInstruction: instruction(true, true),
  },
  { evpId: 'CV', vettingClasses: ['POLITICAL'], vettingInstruction: instruction(false, true) },
  { evpId: 'NOIMPORT', vettingClasses: ['STANDARD'], vettingInstruction: instruction(true, false) },
  { evpId: 'GARBLED', vettingClasses: ['STANDARD'], vettingInstruction: '{"newVet": {"supported": tru' },
  { evpId: 'NOCLASSES', vettingInstruction: { newVet: { supported: true } } },
  { displayName: 'a record without evpId' },
  'not even a record',
];

interface Deferred {
  resolve: () => void;
  promise: Promise<void>;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { resolve, promise };
}

class FakeClient implements ReferenceListClient {
  calls = { dca: 0, cnp: 0, evp: 0 };
  signals: (AbortSignal | undefined)[] = [];
  dcas: unknown[] = [{ id: 'SINCH', displayName: 'Sinch' }, { id: 'BANDWIDTH' }];
  cnp: unknown = [{ cnpId: 'SINCH' }, { cnpId: 'CSPUPSTREAM', displayName: 'Upstream' }];
  providers: unknown[] = PROVIDERS;
  /** While set, each read waits for it (and honours its signal). */
  gate: Deferred | undefined;

  async #wait(opts: { signal?: AbortSignal } | undefined): Promise<void> {
    this.signals.push(opts?.signal);
    const gate = this.gate;
    if (!gate) return;
    const signal = opts?.signal;
    await new Promise<void>((resolve, reject) => {
      gate.promise.then(resolve);
      signal?.addEventListener(
        'abort',
        () => reject(new RegistryAbortedError({ method: 'GET', path: '/enum' })),
        {
          once: true,
        },
      );
    });
  }
  readDcasRaw: RegistryClient['readDcasRaw'] = async (opts) => {
    this.calls.dca++;
    await this.#wait(opts);
    return this.dcas;
  };
  readConnectivityPartnersRaw: RegistryClient['readConnectivityPartnersRaw'] = async (opts) => {
    this.calls.cnp++;
    await this.#wait(opts);
    return this.cnp;
  };
  readVettingProvidersRaw: RegistryClient['readVettingProvidersRaw'] = async (opts) => {
    this.calls.evp++;
    await this.#wait(opts);
    return this.providers;
  };
}

function setup(perAccount = false) {
  const clock = { now: Date.parse('2026-11-28T00:00:00.000Z') };
  const clients = new Map<string, FakeClient>();
  const client = (account: string) => {
    const key = perAccount ? account : 'one';
    let c = clients.get(key);
    if (!c) {
      c = new FakeClient();
      clients.set(key, c);
    }
    return c;
  };
  const lists = new ReferenceLists(client, { now: () => clock.now });
  return { clock, lists, fake: client('acme'), client };
}

const MIN = 60_000;

describe('reference lists: caching and refresh', () => {
  it('answers from one read per list while the list is fresh, per account', async () => {
    const { lists, fake, client } = setup(true);
    expect(await lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order')).toMatchObject({
      known: true,
      classOffered: true,
      supported: true,
    });
    await lists.vettingProviderOffer('acme', 'WMC', 'ENHANCED', 'order');
    await lists.vettingProviderOffer('acme', 'CV', 'POLITICAL', 'import');
    expect(fake.calls.evp).toBe(1);
    await lists.vettingProviderOffer('other', 'AEGIS', 'STANDARD', 'order');
    expect(fake.calls.evp).toBe(1);
    expect(client('other').calls.evp).toBe(1);
    await lists.upstreamPartner('acme', 'SINCH');
    await lists.upstreamPartner('acme', 'CSPUPSTREAM');
    expect(fake.calls).toMatchObject({ dca: 1, cnp: 1 });
  });

  it('reads a list again once it is older than an hour', async () => {
    const { lists, fake, clock } = setup();
    await lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order');
    clock.now += 59 * MIN;
    await lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order');
    expect(fake.calls.evp).toBe(1);
    clock.now += 2 * MIN;
    await lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order');
    expect(fake.calls.evp).toBe(2);
  });

  it('a refusing answer from a list older than five minutes reads it again once', async () => {
    const { lists, fake, clock } = setup();
    await lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order');
    // Fresh list: a miss is answered at once.
    expect((await lists.vettingProviderOffer('acme', 'NEWCO', 'STANDARD', 'order')).known).toBe(false);
    expect(fake.calls.evp).toBe(1);
    // Six minutes on, the provider was added: the miss re-reads and finds it.
    clock.now += 6 * MIN;
    fake.providers = [
      ...PROVIDERS,
      { evpId: 'NEWCO', vettingClasses: ['STANDARD'], vettingInstruction: instruction(true, true) },
    ];
    const found = await lists.vettingProviderOffer('acme', 'NEWCO', 'STANDARD', 'order');
    expect(found).toMatchObject({
      known: true,
      supported: true,
      checkedAt: new Date(clock.now).toISOString(),
    });
    expect(fake.calls.evp).toBe(2);
    // Still unknown after the re-read: one read only, and the answer is "not listed".
    clock.now += 6 * MIN;
    const missing = await lists.vettingProviderOffer('acme', 'GHOST', 'STANDARD', 'order');
    expect(missing).toMatchObject({ known: false, supported: false });
    expect(missing.reason).toMatch(/GHOST is not in the registry's list/);
    expect(fake.calls.evp).toBe(3);
    // An allowing answer from a six-minute-old list reads nothing.
    clock.now += 6 * MIN;
    await lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order');
    expect(fake.calls.evp).toBe(3);
  });

  it('an unlisted partner in lists older than five minutes re-reads them once', async () => {
    const { lists, fake, clock } = setup();
    expect(await lists.upstreamPartner('acme', 'NEWCNP')).toMatchObject({ listed: false, dca: false });
    expect(fake.calls).toMatchObject({ dca: 1, cnp: 1 });
    clock.now += 6 * MIN;
    fake.cnp = [{ cnpId: 'SINCH' }, { cnpId: 'NEWCNP' }];
    expect(await lists.upstreamPartner('acme', 'NEWCNP')).toMatchObject({ listed: true, dca: false });
    expect(fake.calls).toMatchObject({ dca: 2, cnp: 2 });
    // A listed partner never re-reads before the hour.
    clock.now += 6 * MIN;
    expect(await lists.upstreamPartner('acme', 'NEWCNP')).toMatchObject({ listed: true });
    expect(fake.calls).toMatchObject({ dca: 2, cnp: 2 });
  });

  it('concurrent lookups share one read', async () => {
    const { lists, fake } = setup();
    fake.gate = deferred();
    const answers = Promise.all([
      lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order'),
      lists.vettingProviderOffer('acme', 'WMC', 'STANDARD', 'order'),
      lists.vettingProviderOffer('acme', 'CV', 'POLITICAL', 'import'),
      lists.upstreamPartner('acme', 'SINCH'),
      lists.upstreamPartner('acme', 'BANDWIDTH'),
    ]);
    await Promise.resolve();
    fake.gate.resolve();
    const [aegis, wmc, cv, sinch, bandwidth] = await answers;
    expect(fake.calls).toEqual({ dca: 1, cnp: 1, evp: 1 });
    expect([aegis.supported, wmc.supported, cv.supported]).toEqual([true, true, true]);
    expect(sinch).toMatchObject({ listed: true, dca: true });
    expect(bandwidth).toMatchObject({ listed: true, dca: true });
  });

  it('passes the caller signal to the read; a cancelled waiter stops waiting, the others get the list', async () => {
    const { lists, fake } = setup();
    fake.gate = deferred();
    const starter = new AbortController();
    const waiter = new AbortController();
    const first = lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order', {
      signal: starter.signal,
    });
    const second = lists.vettingProviderOffer('acme', 'WMC', 'STANDARD', 'order', { signal: waiter.signal });
    const third = lists.vettingProviderOffer('acme', 'CV', 'POLITICAL', 'import');
    await Promise.resolve();
    expect(fake.signals[0]).toBe(starter.signal);
    waiter.abort(new Error('waiter cancelled'));
    await expect(second).rejects.toThrow('waiter cancelled');
    // The starter is cancelled: its read aborts; the third caller reads for itself.
    starter.abort(new Error('starter cancelled'));
    await expect(first).rejects.toThrow();
    fake.gate.resolve();
    expect((await third).supported).toBe(true);
    expect(fake.calls.evp).toBe(2);
  });

  it('a failed read is not cached', async () => {
    const { lists, fake } = setup();
    fake.providers = undefined as unknown as unknown[];
    let throws = true;
    const read = fake.readVettingProvidersRaw;
    fake.readVettingProvidersRaw = async (opts) => {
      if (throws) {
        fake.calls.evp++;
        throw new RegistryResponseInvalidError([{ path: '', message: 'not an array' }], {
          method: 'GET',
          path: '/enum/extVettingProvider',
        });
      }
      return read(opts);
    };
    await expect(lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order')).rejects.toThrow();
    throws = false;
    fake.providers = PROVIDERS;
    expect((await lists.vettingProviderOffer('acme', 'AEGIS', 'STANDARD', 'order')).known).toBe(true);
  });
});

describe('reference lists: /enum/cnp in any shape', () => {
  const shapes: [string, unknown][] = [
    ['an array of ids', ['SINCH', 'CSPUPSTREAM']],
    ['records keyed cnpId', [{ cnpId: 'CSPUPSTREAM', displayName: 'Upstream' }]],
    ['records under another key name', [{ partner: { code: 'CSPUPSTREAM' }, name: 'Upstream' }]],
    ['an object keyed by id', { CSPUPSTREAM: { displayName: 'Upstream' }, SINCH: { displayName: 'Sinch' } }],
    ['a wrapper object', { records: [{ id: 'CSPUPSTREAM' }], totalRecords: 1 }],
  ];
  for (const [name, body] of shapes) {
    it(`finds an id in ${name}`, async () => {
      const { lists, fake } = setup();
      fake.cnp = body;
      expect(await lists.upstreamPartner('acme', 'CSPUPSTREAM')).toMatchObject({
        listed: true,
        dca: false,
      });
      expect(await lists.upstreamPartner('acme', 'NOPE')).toMatchObject({ listed: false, dca: false });
    });
  }

  it('an empty or null body lists nobody but the DCAs', async () => {
    const { lists, fake } = setup();
    fake.cnp = null;
    expect(await lists.upstreamPartner('acme', 'CSPUPSTREAM')).toMatchObject({ listed: false });
    expect(await lists.upstreamPartner('acme', 'SINCH')).toMatchObject({ listed: true, dca: true });
  });
});

describe('reference lists: vetting providers', () => {
  it('refuses an unknown provider, a class not offered, an order not supported, an import not supported', async () => {
    const { lists } = setup();
    const wmcPolitical = await lists.vettingProviderOffer('acme', 'WMC', 'POLITICAL', 'order');
    expect(wmcPolitical).toMatchObject({ known: true, classOffered: false, supported: true });
    expect(wmcPolitical.reason).toMatch(/WMC does not offer POLITICAL vets \(it lists STANDARD, ENHANCED\)/);
    expect(offerAllows(wmcPolitical)).toBe(false);

    const cvOrder = await lists.vettingProviderOffer('acme', 'CV', 'POLITICAL', 'order');
    expect(cvOrder).toMatchObject({ known: true, classOffered: true, supported: false });
    expect(cvOrder.reason).toMatch(/newVet.supported is false.*import an existing vet instead/);
    expect(offerAllows(cvOrder)).toBe(false);

    const cvImport = await lists.vettingProviderOffer('acme', 'CV', 'POLITICAL', 'import');
    expect(offerAllows(cvImport)).toBe(true);
    const cvImportNoClass = await lists.vettingProviderOffer('acme', 'CV', undefined, 'import');
    expect(cvImportNoClass).toMatchObject({ classOffered: 'unknown', supported: true });
    expect(offerAllows(cvImportNoClass)).toBe(true);

    const noImport = await lists.vettingProviderOffer('acme', 'NOIMPORT', 'STANDARD', 'import');
    expect(noImport).toMatchObject({ supported: false });
    expect(noImport.reason).toMatch(/importVet.supported is false/);
    expect(offerAllows(noImport)).toBe(false);
    expect(offerAllows(await lists.vettingProviderOffer('acme', 'NOIMPORT', 'STANDARD', 'order'))).toBe(true);
  });

  it('a malformed vettingInstruction is unknown, not a refusal and not a failed list', async () => {
    const { lists } = setup();
    const garbled = await lists.vettingProviderOffer('acme', 'GARBLED', 'STANDARD', 'order');
    expect(garbled).toMatchObject({ known: true, classOffered: true, supported: 'unknown' });
    expect(garbled.reason).toMatch(/does not say whether it supports new vet orders; the registry decides/);
    expect(offerAllows(garbled)).toBe(true);
    // The other records of the same list still answer.
    expect((await lists.vettingProviderOffer('acme', 'AEGIS', 'POLITICAL', 'order')).supported).toBe(true);
    // A record without vettingClasses: the class is unknown, an instruction already parsed is read.
    expect(await lists.vettingProviderOffer('acme', 'NOCLASSES', 'ENHANCED', 'order')).toMatchObject({
      known: true,
      classOffered: 'unknown',
      supported: true,
    });
    expect(await lists.vettingProviderOffer('acme', 'NOCLASSES', 'ENHANCED', 'import')).toMatchObject({
      supported: 'unknown',
    });
  });

  it('parseVettingInstruction reads what it can', () => {
    expect(parseVettingInstruction(undefined)).toEqual({
      newVetSupported: 'unknown',
      importVetSupported: 'unknown',
    });
    expect(parseVettingInstruction('[1,2]')).toEqual({
      newVetSupported: 'unknown',
      importVetSupported: 'unknown',
    });
    expect(parseVettingInstruction('"text"')).toEqual({
      newVetSupported: 'unknown',
      importVetSupported: 'unknown',
    });
    expect(parseVettingInstruction('{"newVet":{"supported":"yes"},"importVet":{"supported":false}}')).toEqual(
      {
        newVetSupported: 'unknown',
        importVetSupported: false,
      },
    );
    expect(parseVettingInstruction({ newVet: { supported: false } })).toEqual({
      newVetSupported: false,
      importVetSupported: 'unknown',
    });
  });
});

describe('reference-list activities', () => {
  it('answer through the cache and map registry failures to activity failures', async () => {
    const { lists, fake } = setup();
    const activities = createReferenceListActivities(lists);
    expect(await lists.upstreamPartner('acme', 'SINCH')).toMatchObject({ listed: true, dca: true });
    expect(
      await activities.vettingProviderOffer({
        account: 'acme',
        evpId: 'CV',
        vettingClass: 'POLITICAL',
        kind: 'order',
      }),
    ).toMatchObject({ supported: false });
    lists.clear();
    fake.readVettingProvidersRaw = async () => {
      throw new RegistryResponseInvalidError([{ path: '', message: 'response body is not JSON' }], {
        method: 'GET',
        path: '/enum/extVettingProvider',
      });
    };
    const failure = await activities
      .vettingProviderOffer({ account: 'acme', evpId: 'AEGIS', vettingClass: 'STANDARD', kind: 'order' })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe(RegistryFailureTypes.unparsable);
  });
});
