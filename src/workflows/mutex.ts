/**
 * Serializes registry work inside one workflow: update handlers and the main reconciliation loop
 * each take the lock around their registry calls, so two operator updates never interleave (see
 * samples-typescript message-passing/safe-message-handlers). Deterministic: built on `condition`.
 */
import { condition } from '@temporalio/workflow';

export class WorkflowMutex {
  private held = false;

  get locked(): boolean {
    return this.held;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await condition(() => !this.held);
    this.held = true;
    try {
      return await fn();
    } finally {
      this.held = false;
    }
  }
}
