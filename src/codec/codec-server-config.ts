/**
 * The codec server's configuration from the environment (`tcr codec-server`), parsed at the edge with
 * errors that name the variable. Tokens and keys are secrets: they are never printed.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { messageOf } from '../common/error-message.js';
import { DEFAULT_CODEC_BODY_LIMIT } from './codec-server.js';
import { type Env, KEYS_FILE_VARIABLE, KEYS_VARIABLE, keyringFromEnv } from './key-file.js';
import type { Keyring } from './keyring.js';

export const DEFAULT_CODEC_SERVER_PORT = 8234;

export interface CodecServerConfig {
  host: string;
  port: number;
  keyring: Keyring;
  tokens: string[];
  allowedOrigins: string[];
  bodyLimit: number;
}

export class CodecServerConfigError extends Error {
  override name = 'CodecServerConfigError';
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const EnvSchema = z.object({
  TCR_CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1'),
  TCR_CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_CODEC_SERVER_PORT),
  TCR_CODEC_SERVER_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform(list)
    .pipe(
      z.array(
        z
          .string()
          .regex(/^https?:\/\/[^/\s]+$/, 'expected origins like http://127.0.0.1:8233, comma-separated'),
      ),
    ),
  TCR_CODEC_SERVER_BODY_LIMIT: z.coerce.number().int().min(1024).default(DEFAULT_CODEC_BODY_LIMIT),
});

/**
 * TCR_PAYLOAD_KEYS_FILE or TCR_PAYLOAD_KEYS (required), TCR_CODEC_SERVER_TOKENS (comma-separated) or
 * TCR_CODEC_SERVER_TOKEN_FILE (one a line; required), TCR_CODEC_SERVER_HOST (127.0.0.1),
 * TCR_CODEC_SERVER_PORT (8234), TCR_CODEC_SERVER_ALLOWED_ORIGINS, TCR_CODEC_SERVER_BODY_LIMIT (bytes).
 */
export function parseCodecServerConfig(env: Env): CodecServerConfig {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success)
    throw new CodecServerConfigError(
      parsed.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; '),
    );
  let keyring: Keyring | undefined;
  try {
    keyring = keyringFromEnv(env);
  } catch (error) {
    throw new CodecServerConfigError(messageOf(error));
  }
  if (!keyring) throw new CodecServerConfigError(`${KEYS_FILE_VARIABLE} or ${KEYS_VARIABLE}: required`);
  const tokenFile = env.TCR_CODEC_SERVER_TOKEN_FILE || undefined;
  let tokens = list(env.TCR_CODEC_SERVER_TOKENS);
  if (tokenFile) {
    if (tokens.length > 0)
      throw new CodecServerConfigError(
        'set TCR_CODEC_SERVER_TOKENS or TCR_CODEC_SERVER_TOKEN_FILE, not both',
      );
    try {
      tokens = list(readFileSync(tokenFile, 'utf8'));
    } catch (error) {
      throw new CodecServerConfigError(
        `TCR_CODEC_SERVER_TOKEN_FILE: cannot read ${tokenFile} (${(error as { code?: string }).code ?? 'unreadable'})`,
      );
    }
  }
  if (tokens.length === 0)
    throw new CodecServerConfigError(
      'TCR_CODEC_SERVER_TOKENS or TCR_CODEC_SERVER_TOKEN_FILE: at least one token is required',
    );
  if (tokens.some((t) => t.length < 16 || /\s/.test(t)))
    throw new CodecServerConfigError(
      'TCR_CODEC_SERVER_TOKENS: each token must be at least 16 characters without spaces',
    );
  return {
    host: parsed.data.TCR_CODEC_SERVER_HOST,
    port: parsed.data.TCR_CODEC_SERVER_PORT,
    keyring,
    tokens,
    allowedOrigins: parsed.data.TCR_CODEC_SERVER_ALLOWED_ORIGINS,
    bodyLimit: parsed.data.TCR_CODEC_SERVER_BODY_LIMIT,
  };
}
