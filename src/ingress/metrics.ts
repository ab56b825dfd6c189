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
  | 'signature_malformed'
  | 'not_json'
  | 'invalid_event'
  /** Verified with an account's secret, but its cspId is another CSP's (acknowledged, never delivered). */
  | 'csp_mismatch';

/** Why a connection was closed on accept. */
export type ConnectionDropReason = 'max_connections' | 'max_per_address' | 'forbidden_source';

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
  /** Permanent hand-off errors acknowledged as dead letters, by gRPC status name. */
  deadLetters: Record<string, number>;
  /** Requests answered 429 by the per-source rate limit. */
  rateLimited: number;
  handoffCount: number;
  handoffSumSeconds: number;
  connectionsOpen: number;
  connectionsDropped: Record<string, number>;
  requestTimeouts: number;
  allowListOn: boolean;
  signatureFailuresFromAllowed: number;
}

export class IngressMetrics {
  private received = 0;
  private verified = 0;
  private duplicates = 0;
  private ignored = 0;
  private handoffFailures = 0;
  private readonly deadLetters = new Map<string, number>();
  private rateLimited = 0;
  private readonly rejected = new Map<string, number>();
  private readonly routed = new Map<string, number>();
  private readonly parked = new Map<string, number>();
  private readonly bucketCounts = HANDOFF_BUCKETS_SECONDS.map(() => 0);
  private handoffCount = 0;
  private handoffSum = 0;
  private connectionsOpen = 0;
  private readonly connectionsDropped = new Map<string, number>();
  private requestTimeouts = 0;
  private allowListOn = false;
  private signatureFailuresFromAllowed = 0;

  connectionOpened(): void {
    this.connectionsOpen++;
  }
  connectionClosed(): void {
    this.connectionsOpen--;
  }
  connectionDropped(reason: ConnectionDropReason): void {
    bump(this.connectionsDropped, reason);
  }
  /** A request whose headers or body did not arrive within the request timeout. */
  requestTimedOut(): void {
    this.requestTimeouts++;
  }
  setAllowListOn(on: boolean): void {
    this.allowListOn = on;
  }
  /** A bad signature from an allow-listed address: the registry itself, so a misconfiguration. */
  signatureFailureFromAllowed(): void {
    this.signatureFailuresFromAllowed++;
  }

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
  /** A delivery Temporal refused permanently: acknowledged and recorded (docs/ingress.md). */
  handoffDeadLetter(code: string): void {
    bump(this.deadLetters, code);
  }
  /** A request refused by the per-source rate limit (429). */
  requestRateLimited(): void {
    this.rateLimited++;
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
      deadLetters: Object.fromEntries(this.deadLetters),
      rateLimited: this.rateLimited,
      handoffCount: this.handoffCount,
      handoffSumSeconds: this.handoffSum,
      connectionsOpen: this.connectionsOpen,
      connectionsDropped: Object.fromEntries(this.connectionsDropped),
      requestTimeouts: this.requestTimeouts,
      allowListOn: this.allowListOn,
      signatureFailuresFromAllowed: this.signatureFailuresFromAllowed,
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
    counter(
      'tcr_ingress_handoff_failures_total',
      'Hand-offs to Temporal that failed (connection closed or 503, per TCR_INGRESS_HANDOFF_FAILURE).',
      [['', this.handoffFailures]],
    );
    counter(
      'tcr_ingress_handoff_dead_letters_total',
      'Deliveries Temporal refused permanently (by gRPC status): acknowledged 2xx and logged as dead letters, not retried.',
      labelled(this.deadLetters, (code) => `{code="${code}"}`),
    );
    counter('tcr_ingress_rate_limited_total', 'Requests answered 429 by the per-source rate limit.', [
      ['', this.rateLimited],
    ]);
    counter(
      'tcr_ingress_signature_failures_from_allowed_total',
      'Bad signatures from allow-listed addresses: TCR_WEBHOOK_URL or the secrets differ from what is registered.',
      [['', this.signatureFailuresFromAllowed]],
    );
    counter(
      'tcr_ingress_connections_dropped_total',
      'Connections closed on accept, by reason.',
      labelled(this.connectionsDropped, (reason) => `{reason="${reason}"}`),
    );
    counter('tcr_ingress_request_timeouts_total', 'Requests closed because they did not arrive in time.', [
      ['', this.requestTimeouts],
    ]);
    const gauge = (gaugeName: string, help: string, value: number) => {
      lines.push(`# HELP ${gaugeName} ${help}`, `# TYPE ${gaugeName} gauge`, `${gaugeName} ${value}`);
    };
    gauge('tcr_ingress_connections_open', 'Open connections on the webhook listener.', this.connectionsOpen);
    gauge(
      'tcr_ingress_allow_list_enabled',
      '1 when TCR_INGRESS_ALLOW restricts who may POST events, 0 when anyone may.',
      this.allowListOn ? 1 : 0,
    );
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
