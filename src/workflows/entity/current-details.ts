/**
 * What the Temporal Web UI shows of a brand, campaign or vet workflow (its "current details", the
 * `__temporal_workflow_metadata` query that `temporal workflow metadata` prints): the phase, what it
 * waits for and until when, the next poll, what an operator must do, and the registry's ids, so an
 * operator needs no CLI to see why a workflow waits. The entity loop (./loop.ts) sets it whenever it
 * starts or stops waiting. Setting it adds no command to history.
 *
 * No personal data: a needs-action entry shows its key and the action the product wrote, never its
 * reason (a registry message can quote a submitted value). Markdown, as the Web UI renders it.
 */
import type { WaitingFor } from '../../contracts/brand.js';

export interface DetailsView {
  phase: string;
  waitingFor?: WaitingFor;
  needsAction: readonly { key: string; action: string; since: string }[];
}

export interface DetailsSubject {
  /** `Brand`, `Campaign`, `Vet`. */
  kind: string;
  /** The CSP's reference (or the vet's provider and sequence). */
  name: string;
  account?: string;
  /** Registry ids known so far (undefined ones are left out). */
  ids?: Record<string, string | undefined>;
}

const NEEDS_ACTION_SHOWN = 5;

export function describeEntity(subject: DetailsSubject, view: DetailsView, final: boolean): string {
  const account = subject.account ? ` (account \`${subject.account}\`)` : '';
  const lines = [
    `**${subject.kind}** \`${subject.name}\`${account}: phase **${view.phase}**${final ? ' (final)' : ''}`,
  ];
  const wait = view.waitingFor;
  if (wait) {
    lines.push(`Waits for: ${wait.what}`);
    if (wait.until) lines.push(`Until: ${wait.until} (then needs-action)`);
    if (wait.nextPollAt) lines.push(`Next registry poll: ${wait.nextPollAt}`);
  } else if (!final) lines.push('Working: reconciling with the registry or running an operation');
  if (view.needsAction.length > 0) {
    lines.push(`Needs action (${view.needsAction.length}):`);
    for (const entry of view.needsAction.slice(0, NEEDS_ACTION_SHOWN))
      lines.push(`- \`${entry.key}\` since ${entry.since}: ${entry.action}`);
    if (view.needsAction.length > NEEDS_ACTION_SHOWN)
      lines.push(`- and ${view.needsAction.length - NEEDS_ACTION_SHOWN} more (tcr status)`);
  }
  const ids = Object.entries(subject.ids ?? {}).filter(([, id]) => id !== undefined);
  if (ids.length > 0) lines.push(`Registry: ${ids.map(([name, id]) => `${name} \`${id}\``).join(', ')}`);
  return lines.join('\n\n');
}
