/** The S3 command that lists a prefix (IAM `s3:ListBucket`), loaded on first use: see `read.ts`. */
export { ListObjectsV2Command } from '@aws-sdk/client-s3';
