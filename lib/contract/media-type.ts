import * as z from 'zod';
import { UnsupportedMediaTypeError } from '../errors/index.ts';

/** `type/subtype`, each an RFC 6838 restricted name (1-127 characters), so at most 255 in all. */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/** Form encodings describe fields, not one file's bytes: storing them would keep the envelope. */
const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/.*)$/i;

const RULE = 'must be a media type (type/subtype, RFC 6838 characters, at most 255), not a form encoding';

/** Why `mediaType` cannot be a stored file's type, or undefined when it can. */
export function mediaTypeProblem(mediaType: string): string | undefined {
  return MEDIA_TYPE.test(mediaType) && !FORM_TYPES.test(mediaType) ? undefined : RULE;
}

/** A file's media type, as `POST /api/files` takes it in JSON (`media_type`). */
export const MediaTypeSchema = z.string().refine((type) => mediaTypeProblem(type) === undefined, RULE);

/**
 * The media type of a `content-type` header (its parameters dropped), lower-cased; no header is
 * `application/octet-stream`. Anything that is not a media type is a 415 at `content-type`.
 */
export function contentTypeOf(header: string | undefined): string {
  const mediaType = (header?.split(';')[0] ?? '').trim().toLowerCase();
  if (header === undefined || mediaType === '') return 'application/octet-stream';
  const problem = mediaTypeProblem(mediaType);
  if (problem === undefined) return mediaType;
  const shown = header.length > 64 ? `${header.slice(0, 64)}…` : header;
  throw new UnsupportedMediaTypeError(
    `The content type ${JSON.stringify(shown)} is not taken: send a file's bytes with its own media type, or JSON to ask for an upload URL.`,
    [{ path: ['content-type'], message: problem }],
  );
}
