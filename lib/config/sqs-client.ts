import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';

export {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';

/**
 * Creates the SQS client. `createRuntime` imports this module with `import()` on the first call of
 * `Runtime.sqs()`, so the SQS SDK is a chunk loaded by a function's first queue operation (the
 * HTTP function's first message, the worker's first hand-back), not at every cold start. The
 * commands the runtime sends are exported from here, so that they come in the same chunk.
 */
export function createSqsClient(config: SQSClientConfig): SQSClient {
  return new SQSClient({ ...config, useQueueUrlAsEndpoint: false });
}
