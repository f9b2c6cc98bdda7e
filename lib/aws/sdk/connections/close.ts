/** The management API command that closes a connection, loaded on first use: see `post.ts`. */
export { DeleteConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
