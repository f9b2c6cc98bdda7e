/** The S3 command that lists a prefix, and its paginator (IAM `s3:ListBucket`), loaded on first use: see `read.ts`. */
export { ListObjectsV2Command, paginateListObjectsV2 } from '@aws-sdk/client-s3';
