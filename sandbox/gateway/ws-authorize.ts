import type { ApiIdentity, WebSocketAuthorizer } from './types.ts';
import type { WebSocketConnectEvent } from './ws-event-types.ts';

/** What a `$connect` authoriser granted. */
export interface ConnectGrant {
  /** `principalId` first, then the context keys: what AWS puts in `requestContext.authorizer`. */
  context: Record<string, unknown>;
  latencyMs: number;
}

/**
 * Runs the authoriser on the REQUEST event AWS would send it. A context value that is not a
 * string, number or boolean throws (a 500 to the client), because API Gateway refuses those too.
 */
export async function authorizeConnect(
  authorizer: WebSocketAuthorizer,
  event: WebSocketConnectEvent,
  api: ApiIdentity,
): Promise<ConnectGrant | null> {
  const started = Date.now();
  const methodArn = `arn:aws:execute-api:${api.region}:${api.accountId}:${api.apiId}/${api.stage}/$connect`;
  // A copy, so that neither side sees what the other later adds to its event.
  const result = await authorizer({ type: 'REQUEST', methodArn, ...structuredClone(event) });
  if (result === null) return null;
  for (const [key, value] of Object.entries(result)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      throw new Error(`Authorizer context value '${key}' must be a string, number or boolean`);
    }
  }
  const { principalId, ...context } = result;
  return {
    context: { principalId: principalId === undefined ? '' : String(principalId), ...context },
    latencyMs: Date.now() - started,
  };
}
