/**
 * Ingress metrics in the Prometheus text exposition format (hand-written: counters with labels and
 * one latency histogram). `snapshot()` gives tests and the benchmark plain numbers.
 */

export type RejectReason =
  | 'forbidden_source'
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'signature_missing'
  | 'signature_invalid'
  | 'not_json'
  | 'invalid_event';

export type RouteVia = 'reference' | 'registry_id';
export type TargetKind = 'brand' | 'campaign';

const HANDOFF_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface IngressMetricsSnapshot {
  received: number;
  verified: number;
  rejected: Record<string, number>;
  routed: Record<string, number>;
  parked: Record<string, number>;
  duplicates: number;
  ignored: number;
  handoffFailures: number;
  handoffCount: number;
  handoffSumSeconds: number;
}

export class IngressMetrics {
  private received = 0;
  private verified = 0;
  private duplicates = 0;
  private ignored = 0;
  private handoffFailures = 0;
  private readonly rejected = new Map<string, number>();
  private readonly routed = new Map<string, number>();
  private readonly parked = new Map<string, number>();
  private readonly bucketCounts = HANDOFF_BUCKETS_SECONDS.map(() => 0);
  private handoffCount = 0;
  private handoffSum = 0;

  eventReceived(): void {
    this.received++;
  }
  eventVerified(): void {
    this.verified++;
  }
  eventRejected(reason: RejectReason): void {
    bump(this.rejected, reason);
  }
  eventRouted(target: TargetKind, via: RouteVia): void {
    bump(this.routed, `${target}|${via}`);
  }
  eventParked(target: TargetKind, via: RouteVia): void {
    bump(this.parked, `${target}|${via}`);
  }
  eventDuplicate(): void {
    this.duplicates++;
  }
  /** A verified, valid event with neither a registry id nor a reference: recorded, not routed. */
  eventIgnored(): void {
    this.ignored++;
  }
  handoffFailed(): void {
    this.handoffFailures++;
  }
  handoffLatency(seconds: number): void {
    this.handoffCount++;
    this.handoffSum += seconds;
    for (let i = 0; i < HANDOFF_BUCKETS_SECONDS.length; i++) {
      if (seconds <= HANDOFF_BUCKETS_SECONDS[i]!) this.bucketCounts[i]!++;
    }
  }

  snapshot(): IngressMetricsSnapshot {
    return {
      received: this.received,
      verified: this.verified,
      rejected: Object.fromEntries(this.rejected),
      routed: Object.fromEntries(this.routed),
      parked: Object.fromEntries(this.parked),
      duplicates: this.duplicates,
      ignored: this.ignored,
      handoffFailures: this.handoffFailures,
      handoffCount: this.handoffCount,
      handoffSumSeconds: this.handoffSum,
    };
  }

  /** Prometheus text format 0.0.4. */
  render(): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, samples: [string, number][]) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
    };
    const labelled = (map: Map<string, number>, render: (key: string) => string): [string, number][] =>
      [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, value]) => [render(key), value]);
    const targetVia = (key: string) => {
      const [target, via] = key.split('|');
      return `{target="${target}",via="${via}"}`;
    };
    counter('tcr_ingress_events_received_total', 'Webhook POSTs received on the event path.', [
      ['', this.received],
    ]);
    counter('tcr_ingress_events_verified_total', 'Events whose signature verified.', [['', this.verified]]);
    counter(
      'tcr_ingress_events_rejected_total',
      'Events refused or recorded as unusable, by reason.',
      labelled(this.rejected, (reason) => `{reason="${reason}"}`),
    );
    counter(
      'tcr_ingress_events_routed_total',
      'Events signalled to their owner workflow, by target kind and route.',
      labelled(this.routed, targetVia),
    );
    counter(
      'tcr_ingress_events_parked_total',
      'Events parked in a parkedEvents workflow, by target kind and key.',
      labelled(this.parked, targetVia),
    );
    counter('tcr_ingress_events_duplicate_total', 'Exact duplicates answered from the edge cache.', [
      ['', this.duplicates],
    ]);
    counter('tcr_ingress_events_ignored_total', 'Valid events with no id or reference to route by.', [
      ['', this.ignored],
    ]);
    counter('tcr_ingress_handoff_failures_total', 'Hand-offs to Temporal that failed (answered 503).', [
      ['', this.handoffFailures],
    ]);
    const name = 'tcr_ingress_handoff_seconds';
    lines.push(`# HELP ${name} Time to hand an event to Temporal.`, `# TYPE ${name} histogram`);
    HANDOFF_BUCKETS_SECONDS.forEach((le, i) => {
      lines.push(`${name}_bucket{le="${le}"} ${this.bucketCounts[i]}`);
    });
    lines.push(`${name}_bucket{le="+Inf"} ${this.handoffCount}`);
    lines.push(`${name}_sum ${this.handoffSum}`, `${name}_count ${this.handoffCount}`);
    return `${lines.join('\n')}\n`;
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
