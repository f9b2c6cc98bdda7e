/** The S3 commands that delete objects (IAM `s3:DeleteObject`), loaded on first use: see `read.ts`. */
export { DeleteObjectCommand, DeleteObjectsCommand } from '@aws-sdk/client-s3';
