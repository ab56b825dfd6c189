/**
 * The simulator's clock. Simulated time runs `timeScale` times faster than the source clock and can be
 * moved forward (advance) or anywhere (set) through the control API. Every dated rule (GOVERNMENT contact
 * verification from 2027-01-21, the SHA-1 header until 2027-03-07, vet and campaign expiry) and every
 * delay (vet progress, share decisions, webhook retries) is measured on this clock.
 */
export class SimClock {
  private anchorSim: number;
  private anchorSource: number;
  private readonly listeners = new Set<(targetMs: number) => void>();

  constructor(
    private readonly source: () => number,
    readonly timeScale: number,
    offsetMs = 0,
  ) {
    if (!(timeScale > 0)) throw new Error('timeScale must be a positive number');
    this.anchorSource = source();
    this.anchorSim = this.anchorSource + offsetMs;
  }

  nowMs(): number {
    return this.anchorSim + (this.source() - this.anchorSource) * this.timeScale;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  iso(): string {
    return this.now().toISOString();
  }

  /** Simulated minus source time; persisted so a restart keeps a moved clock. */
  offsetMs(): number {
    return this.nowMs() - this.source();
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error('advance needs a non-negative duration');
    this.set(new Date(this.nowMs() + ms));
  }

  /** Moves the clock; listeners (the scheduler) may step it through intermediate instants. */
  set(at: Date): void {
    if (this.listeners.size === 0) {
      this.jump(at.getTime());
      return;
    }
    for (const listener of this.listeners) listener(at.getTime());
  }

  /** Moves the clock without telling anyone. */
  jump(toMs: number): void {
    this.anchorSource = this.source();
    this.anchorSim = toMs;
  }

  /** Real milliseconds until the simulated instant `atMs` (0 when already due). */
  realDelayUntil(atMs: number): number {
    return Math.max(0, (atMs - this.nowMs()) / this.timeScale);
  }

  /** The listener is responsible for moving the clock to the target (see Scheduler). */
  onMove(listener: (targetMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

interface Entry {
  id: number;
  dueAt: number;
  run: () => void;
}

/**
 * Runs callbacks at simulated instants with a single real timer for the earliest one. Moving the clock
 * re-arms the timer, so everything now due runs at once, in due order.
 */
export class Scheduler {
  private entries: Entry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private nextId = 1;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly clock: SimClock) {
    this.unsubscribe = clock.onMove((target) => this.moveTo(target));
  }

  at(dueAt: number, run: () => void): () => void {
    const entry: Entry = { id: this.nextId++, dueAt, run };
    const index = this.entries.findIndex((e) => e.dueAt > dueAt);
    if (index === -1) this.entries.push(entry);
    else this.entries.splice(index, 0, entry);
    this.arm();
    return () => {
      this.entries = this.entries.filter((e) => e.id !== entry.id);
    };
  }

  /**
   * Moves the clock to `targetMs`. Going forward, every task due on the way runs with the clock set to its
   * own due instant, in order, so follow-up delays count from when each task was due; all of it happens
   * before this returns (deterministic for tests).
   */
  moveTo(targetMs: number): void {
    while (!this.closed && this.entries[0] && this.entries[0].dueAt <= targetMs) {
      const entry = this.entries.shift()!;
      if (entry.dueAt > this.clock.nowMs()) this.clock.jump(entry.dueAt);
      this.run(entry);
    }
    this.clock.jump(targetMs);
    this.fire();
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.entries = [];
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    const first = this.entries[0];
    if (!first) return;
    // Capped so a paused or slow source clock still re-checks now and then.
    const delay = Math.min(Math.ceil(this.clock.realDelayUntil(first.dueAt)), 60_000);
    this.timer = setTimeout(() => this.fire(), delay);
    this.timer.unref?.();
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.clock.nowMs();
    while (!this.closed && this.entries[0] && this.entries[0].dueAt <= now) {
      this.run(this.entries.shift()!);
    }
    this.arm();
  }

  private run(entry: Entry): void {
    try {
      entry.run();
    } catch (err) {
      console.error('simulator: scheduled task failed', err);
    }
  }
}
