import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import {
  ENCRYPTION_VARIABLE,
  failureConverterPath,
  payloadEncryptionFromEnv,
  plaintextInputFromEnv,
} from '../codec/data-converter.js';
import { SealingCodec } from '../codec/encryption-codec.js';
import { type Env, KEYS_FILE_VARIABLE, KEYS_VARIABLE } from '../codec/key-file.js';
import { KeyringError } from '../codec/keyring.js';
import { PUBLIC_KEYS_FILE_VARIABLE, readPublicKeyFile } from '../codec/public-keys.js';
import { temporalConnectionOptions } from '../config/temporal-connection.js';
import type { IngressConfig } from './config.js';
import { IngressConnection } from './native-connection.js';

/**
 * The ingress's data converter (issue 35, item 3: least privilege at the edge). The ingress writes
 * payloads (the registry's events, as signals and parked-events starts) and reads none back, so it
 * holds only the public ingress keys (TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE, from `tcr payload-keys
 * public`): it seals every payload to the current one (envelope 3, src/codec/sealed-envelope.ts), and
 * code running in it can decrypt no history, not even what it wrote. It refuses the workers' key file
 * (TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS), and, when encryption is required (the default), refuses
 * to start without the public keys. With `required: false` (library callers, tests) a missing file
 * means unencrypted payloads; the workers' keys are refused all the same.
 */
export function ingressDataConverter(
  env: Env = process.env,
  opts: { required?: boolean } = {},
): DataConverter {
  const required = (opts.required ?? true) && payloadEncryptionFromEnv(env) === 'required';
  for (const variable of [KEYS_FILE_VARIABLE, KEYS_VARIABLE])
    if (env[variable])
      throw new KeyringError(
        `${variable}: set for the ingress, which must not hold the keys that decrypt every history: unset it and give the ingress only the public keys (${PUBLIC_KEYS_FILE_VARIABLE}, written by tcr payload-keys public --out FILE)`,
      );
  const file = env[PUBLIC_KEYS_FILE_VARIABLE] || undefined;
  if (!file) {
    if (required)
      throw new KeyringError(
        `${PUBLIC_KEYS_FILE_VARIABLE}: not set, and payloads must be encrypted (${ENCRYPTION_VARIABLE}=required, the default): write the ingress's public key file with tcr payload-keys public --out FILE (from the workers' ${KEYS_FILE_VARIABLE}); only for a namespace whose workers do not encrypt, set ${ENCRYPTION_VARIABLE}=off`,
      );
    return { failureConverterPath };
  }
  const codec = new SealingCodec(readPublicKeyFile(file), { plaintextInput: plaintextInputFromEnv(env) });
  return { failureConverterPath, payloadCodecs: [codec] };
}

/**
 * A Temporal client for the ingress, on an {@link IngressConnection}: native calls (half the CPU of
 * grpc-js per event), retried only within the hand-off deadline (4 attempts, about half a second of
 * back-off), because the registry is the one that retries a failed delivery; and a connection made
 * on first use, so the ingress starts (and reports not ready on /readyz) while Temporal is down. It
 * honours TEMPORAL_* and temporal.toml profiles as the worker does (src/config/temporal-connection.ts).
 */
export function createIngressClient(
  config: Pick<IngressConfig, 'temporalAddress' | 'temporalNamespace'> &
    Partial<Pick<IngressConfig, 'temporal' | 'tracing'>>,
  /** Payload encryption; default `ingressDataConverter(process.env, { required: false })`. */
  dataConverter: DataConverter = ingressDataConverter(process.env, { required: false }),
): Client {
  const options = temporalConnectionOptions(
    config.temporal ?? { address: config.temporalAddress, namespace: config.temporalNamespace },
  );
  return new Client({
    connection: new IngressConnection(options),
    namespace: config.temporalNamespace,
    dataConverter,
    // With tracing on, each signal carries the webhook span's context to the workflow.
    ...(config.tracing ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
  });
}
