import type { Scheduler, SimClock } from './clock.js';
import type { Faults } from './faults.js';
import type { Job, Store } from './state.js';

export interface SimulatorAccount {
  cspId: string;
  apiKey: string;
  apiSecret: string;
}

/** Scenario delays, in simulated seconds (scaled by timeScale). `null` means "only through the control API". */
export interface SimulatorDelays {
  /** Business-contact 2FA (and sole-proprietor OTP) completes by itself after this long. */
  contactVerificationSeconds: number | null;
  /** An ordered vet moves PENDING → UNSCORE after this long. */
  vetUnscoreSeconds: number | null;
  /** An ordered vet is decided (ACTIVE or FAILED) this long after the order. */
  vetDecisionSeconds: number | null;
  /** An appeal is reviewed after this long. */
  appealReviewSeconds: number | null;
  /** The upstream partner decides a share after this long. */
  shareDecisionSeconds: number | null;
  /** A DCA reached through a non-DCA partner accepts after this long. */
  dcaDecisionSeconds: number | null;
  /** Linear retry interval after a network error or timeout of a webhook delivery. */
  webhookNetworkRetrySeconds: number;
}

export const DEFAULT_DELAYS: SimulatorDelays = {
  contactVerificationSeconds: 300,
  vetUnscoreSeconds: 60,
  vetDecisionSeconds: 3600,
  appealReviewSeconds: 86_400,
  shareDecisionSeconds: 60,
  dcaDecisionSeconds: 300,
  webhookNetworkRetrySeconds: 60,
};

/** How the /v2 API answers (not the simulator's behaviour): see docs/simulator.md. */
export interface RegistryApiMode {
  /** Answer only what the spec documents (src/simulator/strict.ts). */
  strict: boolean;
  /** The most records a list page holds, whatever `recordsPerPage` asks (unset: no cap). */
  maxRecordsPerPage?: number;
}

export type JobHandler = (ctx: SimContext, data: Record<string, string>) => void;

export interface EventSink {
  enqueue(cspId: string, event: Record<string, unknown>): void;
}

export class SimContext {
  readonly handlers = new Map<string, JobHandler>();
  events: EventSink = { enqueue: () => {} };
  api: RegistryApiMode = { strict: false };

  constructor(
    readonly store: Store,
    readonly clock: SimClock,
    readonly scheduler: Scheduler,
    readonly faults: Faults,
    readonly accounts: SimulatorAccount[],
    readonly delays: SimulatorDelays,
    readonly webhookTimeoutMs: number,
  ) {}

  nowIso(): string {
    return this.clock.iso();
  }

  emit(cspId: string, event: Record<string, unknown>): void {
    this.events.enqueue(cspId, event);
  }

  /** Schedules a persistent job `seconds` simulated seconds from now; `null` schedules nothing. */
  schedule(kind: string, seconds: number | null, data: Record<string, string>): void {
    if (seconds === null) return;
    this.scheduleAt(kind, this.clock.nowMs() + seconds * 1000, data);
  }

  scheduleAt(kind: string, dueAt: number, data: Record<string, string>): void {
    const job: Job = { id: this.store.nextId('J'), kind, dueAt, data };
    this.store.state.jobs.push(job);
    this.store.changed();
    this.arm(job);
  }

  /** Puts a (loaded or new) job on the scheduler. */
  arm(job: Job): void {
    this.scheduler.at(job.dueAt, () => {
      const jobs = this.store.state.jobs;
      const index = jobs.indexOf(job);
      if (index === -1) return; // gone with a reset
      jobs.splice(index, 1);
      this.store.changed();
      this.handlers.get(job.kind)?.(this, job.data);
    });
  }
}
