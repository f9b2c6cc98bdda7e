/** The presigner (presigned GET and PUT URLs), loaded on first use: see `read.ts`. */
export { getSignedUrl } from '@aws-sdk/s3-request-presigner';
