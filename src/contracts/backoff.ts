/** Poll delays growing from `initialMs` by `factor` up to `maxMs` (e.g. 1 min doubling to 1 h). */
export interface BackoffSchedule {
  initialMs: number;
  maxMs: number;
  /** Default 2. */
  factor?: number;
}
