import { PayloadTooLargeError } from '../errors/index.ts';

/**
 * The most a file sent as the body of `POST /api/files` may be: 4 MiB (4,194,304 bytes).
 *
 * The whole request reaches the function as one JSON event, and Lambda refuses an event of
 * 6,291,456 bytes or more. API Gateway base64-encodes a binary body into that event, 4 bytes for
 * every 3, so 4 MiB becomes 5,592,408 bytes and leaves about 680 KB for the rest of the event
 * (headers, query, requestContext). The exact ceiling with a generous 64 KB envelope would be
 * ⌊(6,291,456 − 65,536) × 3/4⌋ = 4,669,440 bytes; the round number keeps a margin. A request past
 * that ceiling never reaches the function (API Gateway answers 500), so the presigned upload is the
 * way for anything larger, up to `files.maxBytes`.
 */
export const DIRECT_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

/** Refuses a body over {@link DIRECT_UPLOAD_MAX_BYTES}, pointing the caller at the presigned upload. */
export function checkDirectUpload(size: number): void {
  if (size <= DIRECT_UPLOAD_MAX_BYTES) return;
  throw new PayloadTooLargeError(
    'file_too_large',
    `The file is ${size} bytes; a file sent as the request body may be at most ${DIRECT_UPLOAD_MAX_BYTES} bytes. ` +
      'For a larger file, send {"name", "media_type", "size"} as JSON to POST /api/files and PUT the bytes to the upload URL it answers.',
    [{ path: ['body'], message: `at most ${DIRECT_UPLOAD_MAX_BYTES} bytes in the body; use the upload URL` }],
  );
}
