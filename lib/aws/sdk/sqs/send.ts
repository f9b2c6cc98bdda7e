/** The SQS command that queues a job (IAM `sqs:SendMessage`), loaded on first use: see `visibility.ts`. */
export { SendMessageCommand } from '@aws-sdk/client-sqs';
