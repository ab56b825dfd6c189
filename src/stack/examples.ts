/**
 * The bundled example orders (examples/): brands, a vet, campaigns. Submitted once per data folder:
 * each order that reached Temporal is written to `{dataDir}/examples-submitted.json`, so a restart
 * submits only what had not been submitted yet (nothing, normally).
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { messageOf } from '../common/error-message.js';
import { orderVet, startBrandOrder, waitForBrandPhase } from '../orders/brand-client.js';
import { startCampaignOrder } from '../orders/campaign-orders.js';

export const EXAMPLES_MARKER = 'examples-submitted.json';

export const VetExampleSchema = z.object({
  brandReference: z.string().min(1),
  evpId: z.string().min(1),
  vettingClass: z.enum(['STANDARD', 'ENHANCED', 'POLITICAL']),
});

export interface ExampleFile {
  kind: 'brand' | 'vet' | 'campaign';
  /** Stable key in the marker file, e.g. `brand:acme-widgets`. */
  key: string;
  file: string;
  body: unknown;
}

const MarkerSchema = z.object({ submitted: z.array(z.string()) });

/** Reads examples/{brands,vets,campaigns}/*.json, in that order and by file name. */
export function loadExamples(examplesDir: string): ExampleFile[] {
  const out: ExampleFile[] = [];
  for (const [folder, kind] of [
    ['brands', 'brand'],
    ['vets', 'vet'],
    ['campaigns', 'campaign'],
  ] as const) {
    const dir = join(examplesDir, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      const file = join(dir, name);
      let body: unknown;
      try {
        body = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new Error(`${file}: not valid JSON (${messageOf(error)})`);
      }
      const ref =
        kind === 'vet'
          ? `${String((body as { brandReference?: unknown }).brandReference)}/${name.replace(/\.json$/, '')}`
          : String((body as { reference?: unknown }).reference);
      out.push({ kind, key: `${kind}:${ref}`, file, body });
    }
  }
  return out;
}

export function readSubmitted(dataDir: string): Set<string> {
  const file = join(dataDir, EXAMPLES_MARKER);
  if (!existsSync(file)) return new Set();
  const parsed = MarkerSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: not an examples marker ({"submitted": [...]})`);
  return new Set(parsed.data.submitted);
}

function writeSubmitted(dataDir: string, submitted: Set<string>): void {
  const file = join(dataDir, EXAMPLES_MARKER);
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ submitted: [...submitted].sort() }, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

export interface ExampleSubmission {
  /** Keys submitted by this start. */
  submitted: string[];
  /** Keys found in the marker (submitted by an earlier start). */
  alreadySubmitted: string[];
  /** Resolves when every background submission (vets wait for their brand) has finished. */
  done: Promise<void>;
}

/**
 * Submits every example not yet in the marker. Brands and campaigns start at once (campaigns wait
 * for their brand inside the workflow); a vet is ordered once its brand is ready, in the background.
 */
export async function submitExamples(
  client: Client,
  dataDir: string,
  examples: ExampleFile[],
  opts: { log: (line: string) => void; isStopping: () => boolean; vetWaitMs?: number },
): Promise<ExampleSubmission> {
  const done = readSubmitted(dataDir);
  const alreadySubmitted = examples.filter((e) => done.has(e.key)).map((e) => e.key);
  const submitted: string[] = [];
  const mark = (key: string) => {
    done.add(key);
    submitted.push(key);
    writeSubmitted(dataDir, done);
  };
  const background: Promise<void>[] = [];
  for (const example of examples) {
    if (done.has(example.key)) continue;
    if (example.kind === 'brand') {
      const started = await startBrandOrder(client, example.body);
      opts.log(
        `example ${example.key}: ${started.started ? 'started' : 'already running'} ${started.handle.workflowId}`,
      );
      mark(example.key);
    } else if (example.kind === 'campaign') {
      // The product's defaults: the brand's workflow tells the campaign when the brand is ready.
      const started = await startCampaignOrder(client, example.body);
      opts.log(
        `example ${example.key}: ${started.started ? 'started' : 'already running'} ${started.handle.workflowId}`,
      );
      mark(example.key);
    } else {
      const vet = VetExampleSchema.parse(example.body);
      background.push(
        (async () => {
          const deadline = Date.now() + (opts.vetWaitMs ?? 10 * 60_000);
          while (!opts.isStopping() && Date.now() < deadline) {
            try {
              await waitForBrandPhase(client, vet.brandReference, 'ready', 2_000, 250);
              await orderVet(client, vet.brandReference, {
                evpId: vet.evpId,
                vettingClass: vet.vettingClass,
              });
              opts.log(
                `example ${example.key}: ${vet.evpId} ${vet.vettingClass} vet ordered for brand/${vet.brandReference}`,
              );
              mark(example.key);
              return;
            } catch {
              // Not ready yet (or stopping): try again until the deadline.
            }
          }
          if (!opts.isStopping())
            opts.log(
              `example ${example.key}: brand/${vet.brandReference} was not ready in time; the vet is ordered at the next start`,
            );
        })(),
      );
    }
  }
  return { submitted, alreadySubmitted, done: Promise.all(background).then(() => undefined) };
}
