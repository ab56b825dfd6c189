/** Poll delays growing from `initialMs` by `factor` up to `maxMs` (e.g. 1 min doubling to 1 h). */
export interface BackoffSchedule {
  initialMs: number;
  maxMs: number;
  /** Default 2. */
  factor?: number;
  /**
   * A long tail for waits that last: once the schedule's polls add up to `afterMs` (the entity has
   * been waiting that long with no change), every further poll is `everyMs` apart. Without it the
   * polls stay at `maxMs` for as long as the wait lasts.
   */
  tail?: { afterMs: number; everyMs: number };
}
