/**
 * Looks for secrets in a workflow history as fetched without the codec: as text in the raw protobuf
 * bytes (where ids, search attributes, failure messages and unencrypted payloads are UTF-8), and as
 * base64, at any of the three byte alignments, in the history's JSON form (bytes as base64, as
 * `temporal workflow show --output json` prints them).
 *
 * Ciphertext is random bytes, and rendered as base64 random base64 text, so a short pattern would
 * turn up by chance (a 3-letter name in a few hundred KB of ciphertext, often): a secret shorter than
 * 8 bytes is searched as its JSON string (`"Doe"`, as a payload holds it), and base64 forms shorter
 * than 8 characters are not searched. (So a short secret inside a longer string, in clear, is not
 * found; long ones are.)
 */
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const HistoryProto = temporal.api.history.v1.History;

/** The parts of base64(secret) that appear in the base64 of any text containing it, whatever its offset. */
export function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // Drop the characters that mix in the padding bytes before, and the last (partial) group.
    const start = Math.ceil((shift * 4) / 3);
    const whole = Math.floor((shift + bytes.length) / 3) * 4;
    const core = encoded.slice(start, whole);
    if (core.length >= 4) cores.push(core);
  }
  return cores;
}

/** Shorter base64 forms would turn up by chance in the random base64 of ciphertext. */
const MIN_BASE64_FORM = 8;

/**
 * The base64 forms searched for `secret`: its cores of at least 8 characters; for a secret too short
 * to have three of them (under 8 bytes), the cores of its JSON string (`"Hank"`), as a payload holds it.
 */
export function base64Forms(secret: string): string[] {
  return base64Cores(plainForm(secret)).filter((core) => core.length >= MIN_BASE64_FORM);
}

/** The text searched for `secret`: itself, or its JSON string when it is shorter than 8 bytes. */
export function plainForm(secret: string): string {
  return Buffer.byteLength(secret) >= 8 ? secret : JSON.stringify(secret);
}

/** The secrets found in the history, each with where it was found. Empty when none leaks. */
export function historyLeaks(history: History, secrets: readonly string[]): string[] {
  const binary = Buffer.from(HistoryProto.encode(HistoryProto.fromObject(history)).finish());
  // Numbers are left out of the text form: a history's numbers are the server's (times, ids, sizes).
  // Once, under load, a campaign's history held an EIN's 9 digits here and nowhere in its protobuf,
  // where every text field is UTF-8: a number (a timestamp's nanoseconds, say) that happened to equal
  // it. Text is searched here and in the protobuf.
  const json = JSON.stringify(
    HistoryProto.toObject(HistoryProto.fromObject(history), { bytes: String, longs: Number }),
    (_key, value) => (typeof value === 'number' ? undefined : value),
  );
  const found: string[] = [];
  for (const secret of secrets) {
    const plain = plainForm(secret);
    if (binary.includes(plain)) found.push(`${secret} (plain, protobuf)`);
    if (json.includes(plain)) found.push(`${secret} (plain, JSON)`);
    for (const core of base64Forms(secret)) {
      if (json.includes(core) || binary.includes(core)) {
        found.push(`${secret} (base64 ${core})`);
        break;
      }
    }
  }
  return found;
}

/** A payload of a history and where it is: `<event id> <event type> <field path>`. */
export interface LocatedPayload {
  payload: Payload;
  at: string;
}

/**
 * Every payload of a history (inputs, results, signals, updates, markers, failures' encoded
 * attributes, memos, headers) with where it is. Search attributes are left out: Temporal indexes
 * them, so no codec ever sees them; they are checked as text (`historyLeaks`).
 */
export function locatedHistoryPayloads(history: History): LocatedPayload[] {
  const out: LocatedPayload[] = [];
  const walk = (value: unknown, path: string): void => {
    if (value === null || typeof value !== 'object') return;
    if (value instanceof Uint8Array) return;
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`);
      return;
    }
    const record = value as Record<string, unknown>;
    const metadata = record.metadata as Record<string, unknown> | undefined;
    if (
      metadata &&
      typeof metadata === 'object' &&
      metadata.encoding instanceof Uint8Array &&
      'data' in record
    ) {
      out.push({ payload: record as Payload, at: path });
      return;
    }
    for (const [key, v] of Object.entries(record)) if (key !== 'searchAttributes') walk(v, `${path}.${key}`);
  };
  for (const event of history.events ?? []) {
    const type = temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
    walk(event, `${String(event.eventId)} ${type.replace('EVENT_TYPE_', '')}`);
  }
  return out;
}

/** The payloads of `locatedHistoryPayloads`, without where they are. */
export function historyPayloads(history: History): Payload[] {
  return locatedHistoryPayloads(history).map((p) => p.payload);
}

export function payloadEncoding(payload: Payload): string {
  return Buffer.from(payload.metadata?.encoding ?? []).toString();
}
