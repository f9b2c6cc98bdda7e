import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { InvalidTokenError } from '../errors/index.ts';
import { gatewayClaims } from './claims.ts';
import type { JwtVerifier } from './jwt.ts';
import { connectToken } from './token.ts';

/** The error message that makes API Gateway answer 401 rather than 500 for a Lambda authoriser. */
const UNAUTHORIZED = 'Unauthorized';

/** The `$connect` Lambda authoriser: a REQUEST event in, an IAM policy with the caller's claims out. */
export type ConnectAuthorizer = (
  event: APIGatewayRequestAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

/** Options of {@link createConnectAuthorizer}. */
export interface ConnectAuthorizerOptions {
  /** Checks a token: {@link createJwtVerifier}, or {@link verifierFromEnv} in Lambda. */
  verifier: JwtVerifier;
  /** Where refusals are logged (their reason, never the token). Default: a Powertools logger. */
  logger?: Pick<Logger, 'info'>;
}

/**
 * The WebSocket API's `$connect` authoriser: it finds the token (the `Authorization` header, the
 * `switchboard.bearer.<token>` subprotocol or the `token` query parameter), verifies it as the HTTP
 * API's JWT authoriser does, and allows the connection with the token's claims as its context (each
 * value a string, see {@link gatewayClaims}), which API Gateway hands to every later event of the
 * connection. A missing or refused token fails with `Unauthorized`, which API Gateway answers 401.
 *
 * The authoriser has no identity source on purpose: API Gateway answers 401 without calling it when
 * an identity source is missing, and the token may come in either of two places (a browser offers a
 * subprotocol or uses the query string), so naming one would refuse the other and naming both would
 * require both.
 *
 * @example
 * ```ts
 * export const handler = createConnectAuthorizer({
 *   verifier: verifierFromEnv(),
 * });
 * ```
 */
export function createConnectAuthorizer(options: ConnectAuthorizerOptions): ConnectAuthorizer {
  const verify = options.verifier;
  const logger = options.logger ?? new Logger({ serviceName: 'switchboard' });
  return async (event) => {
    const token = connectToken(event);
    if (!token) {
      logger.info('$connect refused: no token in the Authorization header, the subprotocol or the query');
      throw new Error(UNAUTHORIZED);
    }
    let claims: Record<string, string>;
    try {
      claims = gatewayClaims(await verify(token));
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      logger.info(`$connect refused: ${error.message}`);
      throw new Error(UNAUTHORIZED);
    }
    const { principalId: _principal, ...context } = claims;
    return {
      principalId: claims.sub ?? '',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
      context,
    };
  };
}
