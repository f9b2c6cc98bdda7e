import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
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

/** Whether a policy statement's resource covers `arn` (`*` matching any run of characters, as IAM does). */
function covers(resource: string | string[], arn: string): boolean {
  return [resource].flat().some((pattern) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\$]/g, '\\$&'))
        .join('.*')}$`,
    ).test(arn),
  );
}

/**
 * Adapts a real `$connect` Lambda authoriser (an IAM policy out, as AWS takes it) to the gateway: a
 * policy that allows `execute-api:Invoke` on the method is the connection's context (`principalId`
 * and the policy's `context`), one that does not is 403, and a failure with `Unauthorized` stays 401.
 */
export function lambdaPolicyAuthorizer(
  handler: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>,
): WebSocketAuthorizer {
  return async (event) => {
    const result = await handler(event as unknown as APIGatewayRequestAuthorizerEvent);
    const statements = result.policyDocument.Statement as { Effect: string; Resource?: string | string[] }[];
    const denied = statements.some((s) => s.Effect === 'Deny' && covers(s.Resource ?? [], event.methodArn));
    const allowed = statements.some((s) => s.Effect === 'Allow' && covers(s.Resource ?? [], event.methodArn));
    return allowed && !denied ? { principalId: result.principalId, ...result.context } : null;
  };
}
