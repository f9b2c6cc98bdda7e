import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';

/**
 * Creates the SQS client. `createRuntime` imports this module with `import()` on the first call of
 * `Runtime.sqs()`, so the SQS SDK is a chunk loaded by a function's first queue operation (the
 * HTTP function's first message, the worker's first hand-back), not at every cold start. The
 * commands come from modules of their own (`sqs/`), one per use.
 */
export function createSqsClient(config: SQSClientConfig): SQSClient {
  return new SQSClient({ ...config, useQueueUrlAsEndpoint: false });
}
