import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/**
 * Creates the S3 client. `createRuntime` imports this module with `import()` on the first call of
 * `Runtime.s3()`, so the S3 SDK (about 150 KB minified with its XML protocol and checksums) is a
 * chunk loaded by the first file or blob operation, not at every cold start.
 */
export function createS3Client(config: S3ClientConfig): S3Client {
  return new S3Client({
    ...config,
    forcePathStyle: config.endpoint !== undefined,
    // By default the SDK signs a checksum of the (empty) body into a presigned PUT URL, and S3 then
    // refuses every real upload to it with BadDigest; checksums are sent only where S3 requires one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}
