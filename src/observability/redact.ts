/**
 * Secret redaction for structured logs. Keys that name a credential are replaced by `[redacted]`
 * at any depth (bounded), so a careless `log.info('x', { account })` cannot leak an API secret.
 */

export const REDACTED = '[redacted]';

/** Key names treated as secrets (case-insensitive, `_` and `-` ignored). */
const SECRET_KEY =
  /(secret|password|passwd|apikey|apisecret|token|authorization|cookie|credential|privatekey|clientkey|signature)/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.replace(/[-_]/g, ''));
}

const MAX_DEPTH = 6;

/** A copy of `value` with every secret-named key redacted; cycles and deep nesting are cut. */
export function redactSecrets(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return { type: value.name, message: value.message, ...(value.stack ? { stack: value.stack } : {}) };
  }
  if (value instanceof Date) return value.toISOString();
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[nested]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = isSecretKey(key) ? REDACTED : redactSecrets(v, depth + 1, seen);
  }
  return out;
}

/** pino `redact` paths for the secret-named fields the product's own records may carry. */
export const pinoRedactPaths: string[] = [
  'apiKey',
  'apiSecret',
  'secret',
  'secrets',
  'password',
  'token',
  'authorization',
  '*.apiKey',
  '*.apiSecret',
  '*.secret',
  '*.secrets',
  '*.password',
  '*.token',
  '*.authorization',
  'req.headers.authorization',
  'headers.authorization',
];
