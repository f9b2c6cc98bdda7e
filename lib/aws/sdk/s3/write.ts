/** The S3 command that writes an object (IAM `s3:PutObject`), loaded on first use: see `read.ts`. */
export { PutObjectCommand } from '@aws-sdk/client-s3';
