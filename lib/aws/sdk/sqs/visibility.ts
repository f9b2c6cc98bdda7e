/**
 * The SQS commands that hand records back early (IAM `sqs:GetQueueAttributes`,
 * `sqs:ChangeMessageVisibility`), loaded on first use. One module per use, as lib/aws/sdk/s3's: a
 * module loaded with `import()` keeps every name it exports in each bundle that loads it, so a
 * function that only queues jobs would carry, and seem to call, the worker's commands.
 */
export { ChangeMessageVisibilityBatchCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
