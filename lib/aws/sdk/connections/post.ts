/**
 * The management API command that sends a frame to a connection (IAM `execute-api:ManageConnections`),
 * loaded on first use; one module per command, as `../sqs/visibility.ts` says why.
 */
export { PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
