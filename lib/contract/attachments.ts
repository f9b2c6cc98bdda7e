import * as z from 'zod';
import type { ImagePart } from './agent-schemas.ts';

/** The most characters one attachment's data URI, URL or text may have. */
export const MAX_ATTACHMENT_CHARS = 12_000_000;

const CONTENT_FIELDS = ['data_uri', 'url', 'text', 'file_id'] as const;

/** An attachment on a message or inside host_context: exactly one of data_uri, url, text or file_id. */
export const AttachmentSchema = z
  .object({
    kind: z.enum(['image', 'document', 'text']).default('image'),
    purpose: z.enum(['reference', 'screenshot']).default('reference'),
    data_uri: z
      .string()
      .max(MAX_ATTACHMENT_CHARS)
      .regex(/^data:[^,]*,/, 'must be a data: URI')
      .optional(),
    url: z
      .string()
      .max(MAX_ATTACHMENT_CHARS)
      .regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL')
      .optional(),
    text: z.string().max(MAX_ATTACHMENT_CHARS).optional(),
    file_id: z
      .string()
      .regex(/^file_[0-9A-Z]{26}$/, 'must be the id POST /api/files returned')
      .optional(),
    name: z.string().max(512).optional(),
    description: z.string().max(4_000).optional(),
    media_type: z.string().max(255).optional(),
  })
  .strict()
  .superRefine((attachment, ctx) => {
    const given = CONTENT_FIELDS.filter((field) => attachment[field] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given.length === 0 ? [] : [given[1] ?? given[0] ?? ''],
        message:
          given.length === 0
            ? 'needs exactly one of data_uri, url, text or file_id'
            : `has ${given.join(' and ')}: give exactly one of data_uri, url, text or file_id`,
      });
    }
  });
export type Attachment = z.infer<typeof AttachmentSchema>;

/** The identity of an attachment's content, for dropping duplicates. */
function contentKey(a: Attachment): string {
  return JSON.stringify([a.kind, a.purpose, a.data_uri, a.url, a.text, a.file_id]);
}

/**
 * The attachments that reach a turn: the message's own first, then the legacy `images` and
 * `screenshot` fields (as screenshots), then those inside host_context; duplicates dropped.
 */
export function collectAttachments(sources: {
  attachments?: Attachment[];
  images?: string[];
  screenshot?: string;
  contextAttachments?: Attachment[];
}): Attachment[] {
  const legacy: Attachment[] = [
    ...(sources.images ?? []).map((data_uri) => ({
      kind: 'image' as const,
      purpose: 'screenshot' as const,
      data_uri,
    })),
    ...(sources.screenshot
      ? [{ kind: 'image' as const, purpose: 'screenshot' as const, data_uri: sources.screenshot }]
      : []),
  ];
  const seen = new Set<string>();
  return [...(sources.attachments ?? []), ...legacy, ...(sources.contextAttachments ?? [])].filter((a) => {
    const key = contentKey(a);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A data URI's bytes and its media type, when it names one. */
export function decodeDataUri(uri: string): { mediaType?: string; bytes: Buffer } {
  const comma = uri.indexOf(',');
  const params = uri.slice('data:'.length, comma).split(';');
  const body = uri.slice(comma + 1);
  const mediaType = params[0]?.trim() || undefined;
  if (params.slice(1).some((p) => p.trim().toLowerCase() === 'base64'))
    return { mediaType, bytes: Buffer.from(body, 'base64') };
  // A plain data URI is percent-encoded text; a stray `%` is taken as it is rather than refused.
  let text = body;
  try {
    text = decodeURIComponent(body);
  } catch {}
  return { mediaType, bytes: Buffer.from(text, 'utf8') };
}

/**
 * Screenshots as the model reads them when it calls `look_at_screen`: each an image part, inline (a
 * data URI's bytes, base64) or by URL.
 */
export function screenshotParts(screenshots: Attachment[]): ImagePart[] {
  return screenshots.flatMap((shot): ImagePart[] => {
    if (shot.data_uri !== undefined) {
      const { mediaType, bytes } = decodeDataUri(shot.data_uri);
      return [
        {
          type: 'image',
          mediaType: mediaType ?? shot.media_type ?? 'image/png',
          data: bytes.toString('base64'),
        },
      ];
    }
    if (shot.url !== undefined)
      return [
        {
          type: 'image',
          url: shot.url,
          ...(shot.media_type !== undefined && { mediaType: shot.media_type }),
        },
      ];
    return [];
  });
}
