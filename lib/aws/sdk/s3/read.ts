/**
 * The S3 commands that read an object (IAM `s3:GetObject`). The modules of this folder are imported
 * with `import()` where a command is sent, so the S3 SDK is a chunk loaded by a function's first file
 * or blob operation, not at its cold start. One module per IAM action: a function's bundle holds
 * only the commands its code can reach, which `test/infra/iam.test.ts` checks against its grants.
 */
export { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
