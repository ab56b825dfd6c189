import { parseArgs } from 'node:util';
import {
  createIngressClient,
  ingressDataConverter,
  parseIngressConfig,
  startIngress,
} from '../ingress/index.js';
import { startTracing } from '../observability/tracing.js';
import { exitWhenDone } from '../workers/process-signals.js';
import { untilSignal } from './shutdown.js';

export const ingressHelp = `tcr ingress: receive the registry's signed webhooks and hand each event to its workflow

Configuration comes from the environment (docs/ingress.md has the full table); flags override it.

Options:
  --host HOST          listen address               (env TCR_INGRESS_HOST, default 127.0.0.1)
  --port N             listen port                  (env TCR_INGRESS_PORT, default 8470)
  --path PATH          webhook path                 (env TCR_INGRESS_PATH, default /webhooks/registry)
  --webhook-url URL    the exact URL registered with the registry, part of every signature
                                                    (env TCR_WEBHOOK_URL, required)
  Secrets are read only from the environment: TCR_WEBHOOK_SECRETS (comma-separated, for rotation)
  or TCR_WEBHOOK_SECRETS_FILE. Each belongs to one account (its file label, or the one account of
  TCR_INGRESS_ACCOUNTS=name[=cspId],...): events reach only the verifying account's workflows.
  Payloads are sealed with the public ingress keys only (TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE, from
  tcr payload-keys public): the ingress cannot decrypt any history, and refuses TCR_PAYLOAD_KEYS_FILE.
  -h, --help           this text`;

export async function runIngress(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      path: { type: 'string' },
      'webhook-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(ingressHelp);
    return 0;
  }
  const env = { ...process.env };
  if (values.host !== undefined) env.TCR_INGRESS_HOST = values.host;
  if (values.port !== undefined) env.TCR_INGRESS_PORT = values.port;
  if (values.path !== undefined) env.TCR_INGRESS_PATH = values.path;
  if (values['webhook-url'] !== undefined) env.TCR_WEBHOOK_URL = values['webhook-url'];
  const config = parseIngressConfig(env);
  // Signals carry the registry's event (personal data): sealed with the public ingress keys only
  // (TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE); without them the ingress does not start, unless
  // TCR_PAYLOAD_ENCRYPTION=off; the workers' key file is refused.
  const converter = ingressDataConverter(env);
  // Before the client: its interceptor and the webhook spans find the provider this registers.
  const tracing = config.tracing ? startTracing({ config: config.tracing }) : undefined;
  const client = createIngressClient(config, converter);
  const ingress = await startIngress({ config, client });
  const internal = ingress.internalUrl ? ` (health and metrics ${ingress.internalUrl})` : '';
  console.error(`ingress listening on ${ingress.endpoint}${internal}`);
  const code = await untilSignal(async () => {
    await ingress.close();
    await client.connection.close();
    await tracing?.shutdown().catch(() => undefined); // traces are best effort; the ingress's work is done
  });
  // A Temporal connection attempt still under way (an unreachable server) would hold the process
  // until the attempt's 30 s timeout: end it once stopped (src/workers/process-signals.ts).
  exitWhenDone(code);
  return code;
}
