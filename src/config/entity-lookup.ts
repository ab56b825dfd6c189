/**
 * Finding an entity's workflow across the id change of issue 35: `{kind}/{account}/{reference}` now,
 * `{kind}/{reference}` (the legacy id) for workflows earlier releases opened, which count only for the
 * account their TcrAccount search attribute names. Used by the order client (./order-client.ts in
 * src/orders), the campaign activities (the brand's status) and the ingress (routing by reference).
 * See docs/operations.md, "Upgrading: account-scoped ids".
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type EntityKind, entityWorkflowId, legacyEntityWorkflowId } from '../contracts/ids.js';
import { AccountKey } from '../contracts/search-attributes.js';

/**
 * Names a brand or campaign: `{account, reference}`, or a bare reference, resolved when exactly one
 * account holds it (the accounts `setOrderAccounts` gave the client are tried; a workflow opened by an
 * earlier release under the legacy id `{kind}/{reference}` counts as its account's). An ambiguous or
 * unresolvable bare reference is refused naming `account`.
 */
export type EntityRef = string | { account: string; reference: string };

/** How an EntityRef is named in messages: `account/reference` or the bare reference. */
export const refName = (ref: EntityRef): string =>
  typeof ref === 'string' ? ref : `${ref.account}/${ref.reference}`;

export const clientAccounts = new WeakMap<Client, readonly string[]>();

/**
 * The CSP accounts a bare reference is resolved among for this client (the workers' accounts; `tcr`
 * gives its --account / TCR_ACCOUNT / the local stack's; orders the client starts add theirs). With
 * exactly one, a bare reference is that account's.
 */
export function setOrderAccounts(client: Client, accounts: readonly string[]): void {
  clientAccounts.set(client, [...new Set(accounts)]);
}

/** Adds an account the client placed an order under: a bare reference is resolved among them too. */
export function rememberOrderAccount(client: Client, account: string): void {
  const known = clientAccounts.get(client) ?? [];
  if (!known.includes(account)) clientAccounts.set(client, [...known, account]);
}

/** A bare reference that names no single workflow: the caller names the account. */
export class AccountRequiredError extends Error {
  override readonly name = 'AccountRequiredError';
  /** The field the caller must give. */
  readonly field = 'account';
  constructor(
    readonly kind: EntityKind,
    readonly reference: string,
    why: string,
  ) {
    super(`${kind} ${reference}: account: ${why}; name the account ({account, reference}, tcr --account)`);
  }
}

export function accountRequired(kind: EntityKind, reference: string, why: string): AccountRequiredError {
  return new AccountRequiredError(kind, reference, why);
}

/** The account a legacy-id workflow belongs to (its TcrAccount search attribute), or undefined when there is none. */
async function legacyAccount(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    const account = description.typedSearchAttributes.get(AccountKey);
    return account ?? '';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

async function exists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * The legacy id `{kind}/{reference}` when a workflow an earlier release opened holds it for `account`
 * (asked when no account-scoped workflow exists), else undefined.
 */
export async function migratedId(client: Client, kind: EntityKind, account: string, reference: string) {
  const legacy = legacyEntityWorkflowId(kind, reference);
  return (await legacyAccount(client, legacy)) === account ? legacy : undefined;
}

/**
 * The legacy id of `{account, reference}` when an earlier release's workflow holds it for this account
 * and a new order must not start beside it: running, or closed in a way that may not run again (the
 * reuse policy: a failed, terminated or timed-out one may be ordered again, now account-scoped).
 */
export async function joinableLegacy(client: Client, kind: EntityKind, account: string, reference: string) {
  const legacy = legacyEntityWorkflowId(kind, reference);
  try {
    const description = await client.workflow.getHandle(legacy).describe();
    if ((description.typedSearchAttributes.get(AccountKey) ?? '') !== account) return undefined;
    const again = ['FAILED', 'TERMINATED', 'TIMED_OUT'].includes(description.status.name);
    return again ? undefined : legacy;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** Resolves a bare reference among the client's accounts (see EntityRef). */
export async function resolveBare(client: Client, kind: EntityKind, reference: string): Promise<string> {
  const accounts = clientAccounts.get(client) ?? [];
  const scoped = await Promise.all(
    accounts.map(async (a) => ((await exists(client, entityWorkflowId(kind, a, reference))) ? a : undefined)),
  );
  const holders = scoped.filter((a): a is string => a !== undefined);
  const legacyOwner = await legacyAccount(client, legacyEntityWorkflowId(kind, reference));
  if (legacyOwner !== undefined && !holders.includes(legacyOwner)) holders.push(legacyOwner);
  if (holders.length > 1)
    throw accountRequired(kind, reference, `held by more than one account (${holders.join(', ')})`);
  if (holders.length === 1) {
    const account = holders[0]!;
    return scoped.includes(account)
      ? entityWorkflowId(kind, account, reference)
      : legacyEntityWorkflowId(kind, reference);
  }
  if (accounts.length === 1) return entityWorkflowId(kind, accounts[0]!, reference);
  throw accountRequired(
    kind,
    reference,
    accounts.length === 0 ? 'no workflow holds it under a legacy id' : 'no account holds it',
  );
}
