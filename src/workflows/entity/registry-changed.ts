/**
 * The estate sweep's wake (src/workflows/estate/sweep.ts), handled the same way by every entity
 * workflow that keeps a fingerprint: a fingerprint other than the one the workflow last saw wakes the
 * loop, which reads the registry and decides. One already seen (the sweep's page was older than the
 * workflow's last read) is ignored. Deterministic: workflow APIs and pure code only.
 */
import { setHandler } from '@temporalio/workflow';
import { registryChangedSignal } from '../../contracts/signals.js';
import type { AuditCause } from './audit.js';
import type { Wakeup } from './wait.js';

export function setRegistryChangedHandler(entity: {
  /** The fingerprint of the registry record the workflow last applied. */
  fingerprint: () => string | undefined;
  final: () => boolean;
  audit: (cause: AuditCause, event: string, detail?: string) => void;
  wakeup: Wakeup;
}): void {
  setHandler(registryChangedSignal, ({ fingerprint, seenAt }) => {
    if (entity.final() || fingerprint === entity.fingerprint()) return;
    entity.audit('sweep', 'registry-changed', `the registry's list at ${seenAt} differs from the last read`);
    entity.wakeup.bump('sweep');
  });
}
