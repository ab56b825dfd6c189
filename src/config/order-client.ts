/**
 * The Temporal client of an order system, connected the way the worker, the ingress and `tcr`
 * connect: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, a `temporal.toml`
 * profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE), read by `@temporalio/envconfig`
 * (./temporal-connection.ts), and the product's data converter (payloads encrypted with the keys
 * TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS name; without keys it refuses to connect unless
 * TCR_PAYLOAD_ENCRYPTION=off). Exported from the package:
 *
 *   import { connectOrderClient, startBrandOrder } from 'tcr-orchestrator';
 *   const { client, close } = await connectOrderClient();
 *   await startBrandOrder(client, order);
 *   await close();
 */
import { Client, type Connection } from '@temporalio/client';
import { requiredDataConverter } from '../codec/data-converter.js';
import { messageOf } from '../common/error-message.js';
import { setOrderAccounts } from './entity-lookup.js';
import { SafelyClosingConnection } from './safely-closing-connection.js';
import {
  loadTemporalConnection,
  type TemporalOverrides,
  temporalClientConnectionOptions,
} from './temporal-connection.js';
import { ConfigError } from './worker-config.js';

export interface OrderClientOptions extends TemporalOverrides {
  /** Where the settings are read (default process.env). */
  env?: Record<string, string | undefined>;
  /** Connect on the first call instead of now (Connection.lazy). */
  lazy?: boolean;
  /**
   * The CSP accounts a bare reference is resolved among when steering (`setOrderAccounts`): with one,
   * a bare reference is that account's. Without, steering names the account (`{account, reference}`).
   */
  accounts?: readonly string[];
}

export interface OrderClient {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

/**
 * Connects a Temporal client for placing and steering orders. A configuration problem (half an mTLS
 * pair, an unreadable certificate, a bad address or profile, a bad key file) throws ConfigError
 * naming every variable at fault, never a value.
 */
export async function connectOrderClient(options: OrderClientOptions = {}): Promise<OrderClient> {
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const target = loadTemporalConnection(env, problems, {
    address: options.address,
    namespace: options.namespace,
  });
  let converter: ReturnType<typeof requiredDataConverter> | undefined;
  try {
    // Without keys the order (EIN, phone, e-mail) would enter the history in clear: refused before any
    // connection unless TCR_PAYLOAD_ENCRYPTION=off.
    converter = requiredDataConverter(env);
  } catch (error) {
    problems.push(messageOf(error));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const connectionOptions = temporalClientConnectionOptions(target);
  const connection = options.lazy
    ? SafelyClosingConnection.lazy(connectionOptions)
    : await SafelyClosingConnection.connect(connectionOptions);
  const client = new Client({ connection, namespace: target.namespace, dataConverter: converter });
  if (options.accounts) setOrderAccounts(client, options.accounts);
  return { client, connection, close: () => connection.close() };
}
