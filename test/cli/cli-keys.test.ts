/**
 * Where `tcr` takes its payload keys from (src/cli/cli-keys.ts): the variables, else the local
 * stack's key file when the CLI talks to that stack, else none, and then nothing leaves in clear.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { cliPayloadKeys, noKeysCodec } from '../../src/cli/cli-keys.js';
import { EncryptionCodec, Keyring, writeKeyFile } from '../../src/codec/index.js';
import { writeTemporalCliConfig } from '../../src/stack/codec.js';
import { tcr, tempDir } from './support.js';

function stackDir(address?: string): { dir: string; ring: Keyring } {
  const dir = tempDir();
  const ring = Keyring.generate('kstack');
  writeKeyFile(join(dir, 'payload-keys.json'), ring);
  if (address)
    writeTemporalCliConfig({
      dataDir: dir,
      address,
      namespace: 'default',
      codecUrl: 'http://127.0.0.1:1',
      token: 't'.repeat(32),
    });
  return { dir, ring };
}

describe("the CLI's payload keys", () => {
  it('takes TCR_PAYLOAD_KEYS_FILE first', () => {
    const { dir } = stackDir('127.0.0.1:7233');
    const own = join(tempDir(), 'keys.json');
    writeKeyFile(own, Keyring.generate('kown'));
    const keys = cliPayloadKeys({ TCR_PAYLOAD_KEYS_FILE: own, TCR_DATA_DIR: dir }, '127.0.0.1:7233');
    expect(keys.keyring?.currentId).toBe('kown');
    expect(keys.source).toBe('TCR_PAYLOAD_KEYS_FILE');
  });

  it("uses the local stack's key file when the CLI connects to the address the stack wrote", () => {
    const { dir } = stackDir('127.0.0.1:41234');
    const env = { TCR_DATA_DIR: dir };
    expect(cliPayloadKeys(env, '127.0.0.1:41234').keyring?.currentId).toBe('kstack');
    expect(cliPayloadKeys(env, 'localhost:41234').keyring?.currentId).toBe('kstack');
    expect(cliPayloadKeys(env, '127.0.0.1:7233').keyring).toBeUndefined();
    expect(cliPayloadKeys(env, 'temporal.example.com:7233').keyring).toBeUndefined();
  });

  it("without the stack's profile, uses its keys for the default address only", () => {
    const { dir } = stackDir();
    expect(cliPayloadKeys({ TCR_DATA_DIR: dir }, '127.0.0.1:7233').keyring?.currentId).toBe('kstack');
    expect(cliPayloadKeys({ TCR_DATA_DIR: dir }, '127.0.0.1:7300').keyring).toBeUndefined();
    expect(cliPayloadKeys({ TCR_DATA_DIR: tempDir() }, '127.0.0.1:7233').keyring).toBeUndefined();
  });

  it("refuses the stack's key file when group or others can read it", () => {
    const { dir } = stackDir('127.0.0.1:7233');
    chmodSync(join(dir, 'payload-keys.json'), 0o644);
    expect(() => cliPayloadKeys({ TCR_DATA_DIR: dir }, '127.0.0.1:7233')).toThrow(
      /readable or writable by group or others \(mode 0644\).*chmod 600/,
    );
  });

  it('refuses a broken key file naming it', () => {
    const { dir } = stackDir('127.0.0.1:7233');
    writeFileSync(join(dir, 'payload-keys.json'), '{', { mode: 0o600 });
    expect(() => cliPayloadKeys({ TCR_DATA_DIR: dir }, '127.0.0.1:7233')).toThrow(/payload-keys\.json/);
  });

  it('without keys sends nothing in clear and names where the keys are on an encrypted payload', async () => {
    const dir = tempDir();
    const codec = noKeysCodec({ TCR_DATA_DIR: dir });
    expect(await codec.encode([])).toEqual([]);
    const plain = defaultPayloadConverter.toPayload({ a: 1 });
    await expect(codec.encode([plain])).rejects.toThrow(
      /refusing to send a payload unencrypted.*TCR_PAYLOAD_KEYS_FILE/,
    );
    expect(await codec.decode([plain])).toEqual([plain]);
    const [encrypted] = await new EncryptionCodec(Keyring.generate('kx')).encode([plain]);
    const refused = codec.decode([encrypted!]);
    await expect(refused).rejects.toThrow(/encrypted \(key 'kx'\).*TCR_PAYLOAD_KEYS_FILE/);
    await expect(codec.decode([encrypted!])).rejects.toThrow(join(dir, 'payload-keys.json'));
  });

  it("the key commands without a key file name the variable and the local stack's file", async () => {
    const dir = tempDir();
    const keysCommand = await tcr(['payload-keys', 'list'], { env: { TCR_DATA_DIR: dir } });
    expect(keysCommand.code).toBe(2);
    expect(keysCommand.stderr).toContain('--file (or TCR_PAYLOAD_KEYS_FILE) is required');
    expect(keysCommand.stderr).toContain(join(dir, 'payload-keys.json'));
    const server = await tcr(['codec-server'], {
      env: { TCR_DATA_DIR: dir, TCR_CODEC_SERVER_TOKENS: 'a-token-of-enough-length' },
    });
    expect(server.code).toBe(2);
    expect(server.stderr).toContain('TCR_PAYLOAD_KEYS_FILE');
    expect(server.stderr).toContain(join(dir, 'payload-keys.json'));
  });
});
