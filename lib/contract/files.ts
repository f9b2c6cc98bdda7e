import * as z from 'zod';
import { MediaTypeSchema } from './media-type.ts';

/**
 * The base64 of a SHA-256 digest, as S3 takes it in `x-amz-checksum-sha256`: 32 bytes are 43
 * characters and one `=`, the last character before it one that leaves the unused bits zero (the
 * one spelling of those bytes, so the value signed is the value S3 compares).
 */
export const Sha256Schema = z
  .string()
  .regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/, 'the base64 of a SHA-256 digest (44 characters)');

/** The body of `POST /api/files` that asks for an upload URL (for files over the transports' limits). */
export const UploadRequestSchema = z
  .object({
    name: z.string().min(1).max(512),
    media_type: MediaTypeSchema.default('application/octet-stream'),
    size: z.number().int().min(1),
    // Its description is the document's (UPLOAD_SHA256 in lib/documents/openapi.ts): words no function needs.
    sha256: Sha256Schema,
  })
  .strict();
