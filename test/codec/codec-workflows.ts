/** A small workflow that holds personal data, for the encryption and rotation tests (test/codec). */
import {
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';

export interface HeldData {
  reference: string;
  ein: string;
  phone: string;
  email: string;
  firstName: string;
  generation: number;
}

export interface CodecTestActivities {
  /** Echoes what it gets, so activity inputs and results both carry the data. */
  lookUp(data: HeldData): Promise<{ ein: string; firstName: string }>;
}

const { lookUp } = proxyActivities<CodecTestActivities>({ startToCloseTimeout: '10 seconds' });

export const tokenSignal = defineSignal<[string]>('token');
export const stageQuery = defineQuery<string>('stage');

/**
 * Looks its data up, waits for a token, and continues as new once (generation 0 → 1). The second run
 * fails with a message that repeats the EIN and the token, like a registry error would.
 */
export async function holdsData(data: HeldData): Promise<HeldData> {
  let token: string | undefined;
  let stage = 'looking-up';
  setHandler(tokenSignal, (t) => {
    token = t;
  });
  setHandler(stageQuery, () => stage);
  const found = await lookUp(data);
  stage = 'waiting-for-token';
  await condition(() => token !== undefined);
  if (data.generation === 0) return continueAsNew<typeof holdsData>({ ...data, generation: 1 });
  throw ApplicationFailure.nonRetryable(
    `the registry refused EIN ${found.ein} with token ${token}`,
    'Refused',
  );
}
