/**
 * Per-account sliding-window limits from the spec: GETs per second and writes (PUT, POST, DELETE) per 10
 * seconds. Measured on real time, never the simulated clock.
 */
export interface RateLimits {
  getsPerSecond: number;
  writesPer10Seconds: number;
}

export const SPEC_RATE_LIMITS: RateLimits = { getsPerSecond: 20, writesPer10Seconds: 20 };

export class RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(
    private readonly limits: RateLimits | false,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Records the call and returns 0 when allowed, otherwise the seconds to wait (for Retry-After). */
  check(cspId: string, method: string): number {
    if (!this.limits) return 0;
    const isGet = method === 'GET' || method === 'HEAD';
    const windowMs = isGet ? 1000 : 10_000;
    const limit = isGet ? this.limits.getsPerSecond : this.limits.writesPer10Seconds;
    const key = `${cspId}:${isGet ? 'get' : 'write'}`;
    const now = this.now();
    const calls = (this.windows.get(key) ?? []).filter((t) => t > now - windowMs);
    if (calls.length >= limit) {
      this.windows.set(key, calls);
      const oldest = calls[0]!;
      return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
    }
    calls.push(now);
    this.windows.set(key, calls);
    return 0;
  }
}
