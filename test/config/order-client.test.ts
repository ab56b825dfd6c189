/**
 * The order system's client (connectOrderClient, exported by the package) reads the Temporal
 * settings as the worker, the ingress and `tcr` do: variables over a `temporal.toml` profile, the API
 * key switching TLS on, the earlier TEMPORAL_TLS_* names; a problem names the variable, never a value.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectOrderClient } from '../../src/config/order-client.js';
import { ConfigError } from '../../src/config/worker-config.js';
import { connectOrderClient as exported } from '../../src/index.js';
import { tempDir } from '../support/temp-dir.js';

// These cases are about the connection settings; payload encryption is off for them (see below).
const NO_TOML = { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml', TCR_PAYLOAD_ENCRYPTION: 'off' };
const API_KEY = 'order-client-api-key-never-print';

describe('connectOrderClient', () => {
  it('is the package export', () => {
    expect(exported).toBe(connectOrderClient);
  });

  it('takes address, namespace and API key from the environment; the key switches TLS on', async () => {
    const { client, connection, close } = await connectOrderClient({
      lazy: true,
      env: {
        ...NO_TOML,
        TEMPORAL_ADDRESS: 'orders.tmprl.example:7233',
        TEMPORAL_NAMESPACE: 'tcr-prod',
        TEMPORAL_API_KEY: API_KEY,
      },
    });
    expect(client.options.namespace).toBe('tcr-prod');
    expect(connection.options.address).toBe('orders.tmprl.example:7233');
    expect(connection.options.credentials._isSecure()).toBe(true);
    await close();
  });

  it('reads a temporal.toml profile, with the variables and the options over it', async () => {
    const file = join(tempDir('tcr-order-client-'), 'temporal.toml');
    writeFileSync(file, '[profile.prod]\naddress = "profile.example:7233"\nnamespace = "from-profile"\n');
    const env = { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TCR_PAYLOAD_ENCRYPTION: 'off' };
    const fromProfile = await connectOrderClient({ lazy: true, env });
    expect(fromProfile.connection.options.address).toBe('profile.example:7233');
    expect(fromProfile.connection.options.credentials._isSecure()).toBe(false);
    expect(fromProfile.client.options.namespace).toBe('from-profile');
    const overridden = await connectOrderClient({
      lazy: true,
      env: { ...env, TEMPORAL_NAMESPACE: 'from-env' },
      address: 'flag.example:7233',
    });
    expect(overridden.connection.options.address).toBe('flag.example:7233');
    expect(overridden.client.options.namespace).toBe('from-env');
    await Promise.all([fromProfile.close(), overridden.close()]);
  });

  it('refuses half an mTLS pair and a bad address, naming the variables', async () => {
    const error = await connectOrderClient({
      lazy: true,
      env: { ...NO_TOML, TEMPORAL_ADDRESS: 'no-port', TEMPORAL_TLS_CERT: '/nonexistent/client.pem' },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'TEMPORAL_ADDRESS: expected host:port',
      expect.stringMatching(/^TEMPORAL_TLS_CERT \/ TEMPORAL_TLS_KEY: set both/),
    ]);
  });

  it('refuses to connect without payload keys (encryption is required unless told off): nothing reaches Temporal', async () => {
    // A stand-in frontend that counts who connects: an order must not get as far as a TCP connection.
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      for (const env of [
        { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml', TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
        {
          TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
          TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
          TCR_PAYLOAD_ENCRYPTION: 'required',
        },
      ]) {
        const error = await connectOrderClient({ env }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).message).toMatch(/TCR_PAYLOAD_KEYS_FILE.*TCR_PAYLOAD_ENCRYPTION/);
      }
      const bad = await connectOrderClient({
        lazy: true,
        env: { ...NO_TOML, TCR_PAYLOAD_ENCRYPTION: 'maybe' },
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((bad as ConfigError).problems).toEqual([
        expect.stringMatching(/^TCR_PAYLOAD_ENCRYPTION: expected required or off/),
      ]);
      expect(sockets).toHaveLength(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
