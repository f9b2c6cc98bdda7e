import {
  ApiGatewayManagementApiClient,
  type ApiGatewayManagementApiClientConfig,
} from '@aws-sdk/client-apigatewaymanagementapi';

/**
 * Creates the WebSocket API's management client. `createRuntime` imports this module with
 * `import()` on the first call of `Runtime.connections()`, so the SDK is a chunk loaded by a
 * function's first post or disconnect, not at every cold start. The commands come from modules of
 * their own (`connections/`), one per use.
 */
export function createManagementClient(
  config: ApiGatewayManagementApiClientConfig,
): ApiGatewayManagementApiClient {
  return new ApiGatewayManagementApiClient(config);
}
