/**
 * The `status` query rendered for people: phase, ids, identity, vets, MNO table, what the workflow
 * waits for and until when, the actions it needs and why, and the last audit entries.
 */

import type { AuditTrail } from '../contracts/audit.js';
import type { BrandStatus, OperatorAction, WaitingFor } from '../contracts/brand.js';
import type { CampaignStatus } from '../contracts/campaign.js';
import { oneLine, printable } from './printable.js';

export type AnyStatus = BrandStatus | CampaignStatus;

function field(label: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return `  ${`${label}:`.padEnd(20)} ${oneLine(value)}`;
}

/** A plain-text table: header row, then rows, columns padded to their widest cell. */
export function table(header: string[], rows: string[][], indent = '  '): string[] {
  rows = rows.map((row) => row.map(oneLine));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `${indent}${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd();
  return [line(header), ...rows.map(line)];
}

function waiting(w: WaitingFor | undefined): string[] {
  if (!w) return [];
  const lines = [`Waiting for: ${w.what}`];
  if (w.until) lines.push(`  until ${w.until}`);
  if (w.nextPollAt) lines.push(`  next reconciliation poll ${w.nextPollAt}`);
  return lines;
}

function actions(needs: OperatorAction[]): string[] {
  if (needs.length === 0) return ['Needs action: no'];
  const lines = [`Needs action (${needs.length}):`];
  for (const a of needs) {
    lines.push(`  [${a.key}] ${a.action}`, `      why: ${a.reason} (since ${a.since})`);
    for (const e of a.registryErrors ?? [])
      lines.push(
        `      registry: ${e.code !== undefined ? `${e.code} ` : ''}${e.description}${e.fields.length ? ` (${e.fields.join(', ')})` : ''}`,
      );
  }
  return lines;
}

function audit(trail: AuditTrail, last: number): string[] {
  const entries = trail.entries.slice(-last);
  if (entries.length === 0) return [];
  const more = trail.entries.length - entries.length + trail.summarized.count;
  return [
    `Audit (last ${entries.length}${more > 0 ? ` of ${entries.length + more}` : ''}):`,
    ...table(
      ['AT', 'CAUSE', 'EVENT', 'DETAIL'],
      entries.map((e) => [
        e.at,
        e.cause,
        e.event,
        [e.from !== undefined || e.to !== undefined ? `${e.from ?? ''} -> ${e.to ?? ''}` : '', e.detail ?? '']
          .filter(Boolean)
          .join('  '),
      ]),
    ),
  ];
}

export function renderBrandStatus(s: BrandStatus, auditEntries = 10): string {
  const lines: (string | undefined)[] = [
    `brand/${s.account}/${s.reference}  phase ${s.phase}`,
    field('account', s.account),
    field('brandId', s.brandId),
    field('entityType', s.entityType),
    field('identityStatus', s.identityStatus),
    field('brandStatus', s.brandStatus),
    field('contactVerifiedAt', s.contactVerifiedAt),
    field('lastGroup3UpdateAt', s.lastGroup3UpdateAt),
    field('cancelReason', s.cancelReason),
  ];
  if (s.vets.length > 0) {
    lines.push(
      'Vets:',
      ...table(
        ['SEQ', 'MODE', 'EVP', 'CLASS', 'STATE', 'SCORE', 'VETTING ID', 'DEADLINE'],
        s.vets.map((v) => [
          String(v.seq),
          v.mode,
          v.evpId,
          v.vettingClass ?? '',
          v.state,
          v.score !== undefined ? String(v.score) : '',
          v.vettingId ?? '',
          v.deadline ?? '',
        ]),
      ),
    );
  }
  lines.push(...waiting(s.waitingFor), ...actions(s.needsAction));
  for (const alert of s.alerts) lines.push(`Alert: ${alert}`);
  if (s.politicalCampaignsAffected) lines.push('Alert: political campaigns affected (political vet expired)');
  lines.push(...audit(s.audit, auditEntries));
  return lines.filter((l): l is string => l !== undefined).join('\n');
}

export function renderCampaignStatus(s: CampaignStatus, auditEntries = 10): string {
  const lines: (string | undefined)[] = [
    `campaign/${s.account}/${s.reference}  phase ${s.phase}`,
    field('account', s.account),
    field('brand', `brand/${s.brandReference}${s.brandId ? ` (${s.brandId})` : ''}`),
    field('campaignId', s.campaignId),
    field('usecase', s.usecase),
    field('upstream partner', s.upstreamCnpId),
    field('registry status', s.campaignStatus),
    field('created (billed)', s.created ? 'yes' : 'no'),
    field(
      'fee approval',
      s.requireFeeApproval
        ? s.feeApprovedBy
          ? `approved by ${s.feeApprovedBy}${s.feeApprovalVerified === undefined ? '' : s.feeApprovalVerified ? ' (signature verified)' : ' (self-declared)'}`
          : 'required'
        : undefined,
    ),
    field('expected fee/month', s.expectedMonthlyFee),
    field('monthly fee', s.monthlyFee),
    field('DCA complete', s.dcaComplete ? 'yes' : 'no'),
    field('renewal/expiry', s.nextRenewalOrExpirationDate ?? s.expirationDate),
    field('auto-renewal', s.autoRenewal === undefined ? undefined : s.autoRenewal ? 'on' : 'off'),
    s.phase === 'winding-down'
      ? `Winding down: ${s.renewalOff ? 'renewal off at the registry' : 'turning renewal off at the registry'}; watched until it expires${s.nextRenewalOrExpirationDate ? ` (${s.nextRenewalOrExpirationDate})` : ''}`
      : undefined,
    field('deactivated', s.deactivated ? 'yes' : undefined),
    field('cancelReason', s.cancelReason),
  ];
  if (s.brandReadiness)
    lines.push(
      field(
        'brand readiness',
        `${s.brandReadiness.workflowPhase} ${s.brandReadiness.reasons.join('; ')}`.trim(),
      ),
    );
  if (s.refusal) lines.push(`Refused: ${s.refusal.reason}`, ...s.refusal.details.map((d) => `  - ${d}`));
  if (s.sharing)
    lines.push(
      `Sharing: ${s.sharing.upstreamCnpId} ${s.sharing.sharingStatus}${s.sharing.explanation ? ` (${s.sharing.explanation})` : ''}`,
    );
  if (s.mno.length > 0)
    lines.push(
      'MNOs:',
      ...table(
        ['MNO', 'NAME', 'QUALIFY', 'REVIEW', 'TIER', 'DAILY CAP', 'OPERATION', 'REASONS'],
        s.mno.map((m) => [
          m.mnoId,
          m.mno ?? '',
          m.qualify === undefined ? '' : m.qualify ? 'yes' : 'no',
          m.mnoReview === undefined ? '' : m.mnoReview ? 'yes' : 'no',
          m.brandTier ?? '',
          m.brandDailyCap === undefined || m.brandDailyCap === null ? '' : String(m.brandDailyCap),
          m.operationStatus ?? '',
          m.reasons.join('; '),
        ]),
      ),
    );
  for (const sus of s.suspensions)
    lines.push(
      `Suspended by ${sus.mnoName ?? sus.mnoId} at ${sus.at}${sus.description ? `: ${sus.description}` : ''}`,
    );
  for (const n of s.nudges)
    lines.push(`Nudge ${n.nudgeIntent} at ${n.at}${n.description ? `: ${n.description}` : ''}`);
  lines.push(...waiting(s.waitingFor), ...actions(s.needsAction));
  lines.push(...audit(s.audit, auditEntries));
  return lines.filter((l): l is string => l !== undefined).join('\n');
}

/** The status for a terminal: registry text in it cannot carry control characters (src/cli/printable.ts). */
export function renderStatus(s: AnyStatus, auditEntries = 10): string {
  const text =
    s.workflowType === 'brand' ? renderBrandStatus(s, auditEntries) : renderCampaignStatus(s, auditEntries);
  return printable(text);
}

/** One-line summary printed after an operator action. */
export function summarizeStatus(s: AnyStatus): string {
  const id = `${s.workflowType}/${s.account}/${s.reference}`;
  const needs =
    s.needsAction.length > 0 ? `; needs action: ${s.needsAction.map((a) => a.action).join('; ')}` : '';
  const wait = s.waitingFor ? `; waiting for ${s.waitingFor.what}` : '';
  return oneLine(`${id}: phase ${s.phase}${wait}${needs}`);
}
