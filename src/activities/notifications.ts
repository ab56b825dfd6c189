/**
 * Signed HTTP notifications to order systems (issue 38, docs/workflows.md "Notifications"): the
 * activity POSTs a notification's canonical JSON (RFC 8785) to the subscriber's URL, signed with
 * HMAC-SHA256 over URL + canonical body under the secret its `secretName` names. The secret is read
 * by the worker from TCR_NOTIFICATION_SECRETS_FILE (mode 0600, one `name secret` a line, `#`
 * comments); it never enters workflow history. A non-2xx answer or a network error throws, and the
 * activity's retry policy (src/workflows/entity/notify.ts) tries again with backoff: at least once,
 * the notificationId lets the receiver deduplicate.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { canonicalize } from 'json-canonicalize';
import { secretFileProblem } from '../config/accounts.js';
import { MIN_SECRET_BYTES } from '../config/webhook-secrets.js';
import type { EntityNotification } from '../contracts/notifications.js';

export const NOTIFICATION_SECRETS_VARIABLE = 'TCR_NOTIFICATION_SECRETS_FILE';
/** The signature header: `sha256=` and the hex HMAC-SHA256 of URL + canonical body. */
export const NOTIFICATION_SIGNATURE_HEADER = 'X-TCR-Signature-256';
export const NOTIFICATION_ID_HEADER = 'X-TCR-Notification-Id';

export interface DeliverNotificationInput {
  url: string;
  secretName: string;
  notification: EntityNotification;
}

export interface NotificationActivities {
  deliverNotification(input: DeliverNotificationInput): Promise<{ status: number }>;
}

/** https, or http to a loopback host only (a receiver on the same machine in development). */
export function notificationUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url: not a valid URL';
  }
  if (parsed.protocol === 'https:') return undefined;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol === 'http:' && loopback) return undefined;
  return 'url: must be https (http only to localhost / 127.0.0.1 / [::1])';
}

/** Parses the secrets file's text: `name secret` a line; problems name the line, never the secret. */
export function parseNotificationSecrets(
  text: string,
  problems: string[],
  where: string,
): Map<string, string> {
  const secrets = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(\S+)\s+(\S+)$/.exec(line);
    if (!match) {
      problems.push(`${where}: line ${index + 1} is not "name secret"`);
      return;
    }
    const [, name, secret] = match as unknown as [string, string, string];
    if (Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES)
      problems.push(
        `${where}: the secret ${name} (line ${index + 1}) is shorter than ${MIN_SECRET_BYTES} bytes`,
      );
    secrets.set(name, secret);
  });
  return secrets;
}

/** Reads the secrets file (refused when group- or world-accessible). */
export function readNotificationSecrets(path: string): Map<string, string> {
  const access = secretFileProblem(NOTIFICATION_SECRETS_VARIABLE, path);
  if (access) throw new Error(access);
  const problems: string[] = [];
  const secrets = parseNotificationSecrets(
    readFileSync(path, 'utf8'),
    problems,
    `${NOTIFICATION_SECRETS_VARIABLE} (${path})`,
  );
  if (problems.length > 0) throw new Error(problems.join('; '));
  return secrets;
}

/** The signature a receiver checks: hex HMAC-SHA256 over URL + canonical body. */
export function signNotification(secret: string, url: string, body: string): string {
  return `sha256=${createHmac('sha256', secret)
    .update(url + body)
    .digest('hex')}`;
}

export function createNotificationActivities(opts: {
  /** The secrets file (default: TCR_NOTIFICATION_SECRETS_FILE); read at each delivery, so a rotation needs no restart. */
  secretsFile?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): NotificationActivities {
  const send = opts.fetch ?? fetch;
  return {
    async deliverNotification({ url, secretName, notification }) {
      const urlProblem = notificationUrlProblem(url);
      if (urlProblem) throw ApplicationFailure.nonRetryable(urlProblem, 'NotificationRefused');
      const path = opts.secretsFile ?? process.env[NOTIFICATION_SECRETS_VARIABLE];
      if (!path)
        throw ApplicationFailure.retryable(
          `${NOTIFICATION_SECRETS_VARIABLE} is not set: no notification is sent unsigned`,
          'NotificationSecretMissing',
        );
      const secret = readNotificationSecrets(path).get(secretName);
      if (!secret)
        throw ApplicationFailure.retryable(
          `secretName: no secret named ${secretName} in ${NOTIFICATION_SECRETS_VARIABLE}`,
          'NotificationSecretMissing',
        );
      const body = canonicalize(notification);
      const response = await send(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [NOTIFICATION_SIGNATURE_HEADER]: signNotification(secret, url, body),
          [NOTIFICATION_ID_HEADER]: notification.notificationId,
        },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
      await response.body?.cancel();
      if (response.status < 200 || response.status >= 300)
        throw ApplicationFailure.retryable(
          `the receiver answered ${response.status} to notification ${notification.notificationId}`,
          'NotificationRejected',
        );
      return { status: response.status };
    },
  };
}
