/**
 * What a worker checks of its namespace before it makes any worker (src/workers/create-workers.ts):
 * that the server knows the namespace, and that the product's search attributes are registered with
 * it. Each failure says what to run.
 */
import type { NativeConnection } from '@temporalio/worker';
import { messageOf } from '../common/error-message.js';
import { allSearchAttributeKeys, searchAttributeCliType } from '../contracts/search-attributes.js';

/** gRPC NOT_FOUND, as the server answers DescribeNamespace for a namespace it does not know. */
const NOT_FOUND = 5;

/**
 * The namespace as the server knows it, checked before any worker is made: a namespace the server
 * does not know (or the credentials cannot see) stops the start with a message naming it, before
 * the workflow bundle is built.
 */
export async function checkNamespace(connection: NativeConnection, namespace: string, address: string) {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === NOT_FOUND)
      throw new Error(
        `namespace '${namespace}' not found on the Temporal server at ${address} (check TEMPORAL_NAMESPACE or --namespace; an operator creates a namespace with 'temporal operator namespace create')`,
      );
    throw new Error(`cannot describe namespace '${namespace}' at ${address}: ${messageOf(error)}`);
  }
}

/** gRPC codes that mean "this server or these credentials do not offer the call": the check is skipped. */
const UNCHECKABLE = new Set([7 /* PERMISSION_DENIED */, 12 /* UNIMPLEMENTED */, 16 /* UNAUTHENTICATED */]);

/**
 * The product's search attributes must be registered with the namespace before a workflow upserts one
 * (a workflow task that upserts an unknown attribute fails, again and again). Checked where the server
 * lets these credentials list them; a missing one stops the start with the command that adds it.
 */
export async function checkSearchAttributes(connection: NativeConnection, namespace: string) {
  let known: Record<string, unknown>;
  try {
    const answer = await connection.operatorService.listSearchAttributes({ namespace });
    known = { ...answer.customAttributes, ...answer.systemAttributes };
  } catch (error) {
    if (UNCHECKABLE.has(Number((error as { code?: unknown } | null)?.code))) return;
    throw new Error(`cannot list the search attributes of namespace '${namespace}': ${messageOf(error)}`);
  }
  const missing = allSearchAttributeKeys.filter((key) => !(key.name in known));
  if (missing.length > 0)
    throw new Error(
      `namespace '${namespace}' lacks the search attributes ${missing.map((k) => k.name).join(', ')}: add them with ${missing
        .map(
          (k) =>
            `'temporal operator search-attribute create --namespace ${namespace} --name ${k.name} --type ${searchAttributeCliType[k.type]}'`,
        )
        .join(' and ')} (docs/operations.md)`,
    );
}
