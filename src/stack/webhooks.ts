/**
 * The local webhook wiring: a signing secret kept in the data folder (created once, mode 0600, so a
 * restart signs and verifies with the same one), set on the simulator's account through the control
 * API, and one subscription per event category pointing at the ingress.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryClient } from '../registry/client.js';
import type { SimulatorControl } from '../simulator/control-client.js';
import { EVENT_CATEGORIES, type SimulatorAccount } from '../simulator/index.js';

export const WEBHOOK_SECRET_FILE = 'webhook-secret';

/** The secret in `{dataDir}/webhook-secret`, created on first use. Never logged. */
export function localWebhookSecret(dataDir: string): string {
  const file = join(dataDir, WEBHOOK_SECRET_FILE);
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret.length >= 16) return secret;
  }
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** Sets the account's secret and subscribes `webhookUrl` to every event category. */
export async function subscribeIngress(opts: {
  simulatorUrl: string;
  control: SimulatorControl;
  account: SimulatorAccount;
  webhookUrl: string;
  secret: string;
}): Promise<string[]> {
  await opts.control.setWebhookSecret({
    secret: opts.secret,
    cspId: opts.account.cspId,
    digestEncoding: 'base64',
  });
  const registry = new RegistryClient({
    environment: 'local',
    baseUrl: opts.simulatorUrl,
    apiKey: opts.account.apiKey,
    apiSecret: opts.account.apiSecret,
  });
  try {
    const categories = Object.keys(EVENT_CATEGORIES);
    for (const eventCategory of categories)
      await registry.putWebhookSubscription({ eventCategory, webhookEndpoint: opts.webhookUrl });
    return categories;
  } finally {
    await registry.close();
  }
}
