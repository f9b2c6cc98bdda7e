import * as z from 'zod';
import { parseOrThrow } from '../errors/index.ts';
import { isPlainObject } from './host-context.ts';
import { SessionIdSchema } from './ids.ts';
import { leaf, normalizeKeys, pathAsSent, type Renames, type Shape } from './normalize.ts';

/**
 * A message id as the server makes it (`msg_<ulid>_<nnn>`), or a steered one's (taken into a
 * running turn: `msg_…_000_s…`).
 */
export const MessageIdSchema = z
  .string()
  .max(128)
  .regex(/^msg_[0-9A-Za-z]+_\d+(?:_s[0-9A-Za-z]+)?$/, 'a message id (msg_…)');

/** Whether a path segment can name a message at all. */
export const isMessageId = (id: string): boolean => MessageIdSchema.safeParse(id).success;

/** How a message rewrites the conversation: asks for the newest answer again, or changes a sent message. */
export const RewriteModeSchema = z.enum(['regenerate', 'edit']);
export type RewriteMode = z.infer<typeof RewriteModeSchema>;

/** What a chat body's rewrite fields may be combined with, checked inside the chat schema's refinement. */
export interface RewriteFields {
  content: string;
  mode?: RewriteMode;
  from_message_id?: string;
  tool_call_id?: string;
  steer?: boolean;
  metadata?: unknown;
  attachments?: unknown;
  images?: unknown;
  screenshot?: unknown;
}

/**
 * The rules of `mode` and `from_message_id`: both or neither; not with a continuation or steering;
 * a regenerate re-runs the stored user message as it was sent, so it carries no content, metadata
 * or attachments of its own.
 */
export function rewriteIssues(body: RewriteFields): { path: string[]; message: string }[] {
  if (body.mode === undefined && body.from_message_id === undefined) return [];
  if (body.mode === undefined) return [{ path: ['mode'], message: 'from_message_id needs mode' }];
  if (body.from_message_id === undefined)
    return [{ path: ['from_message_id'], message: `mode "${body.mode}" needs from_message_id` }];
  if (body.tool_call_id !== undefined) return [{ path: ['mode'], message: 'not with a continuation' }];
  if (body.steer) return [{ path: ['steer'], message: `steering is unsupported for mode "${body.mode}"` }];
  if (body.mode === 'edit') return [];
  const issues = (['metadata', 'attachments', 'images', 'screenshot'] as const)
    .filter((field) => body[field] !== undefined)
    .map((field) => ({
      path: [field as string],
      message: 'a regenerate re-runs the user message as it was sent; use mode "edit" to change it',
    }));
  if (body.content.length > 0)
    issues.unshift({
      path: ['content'],
      message: 'must be "" for a regenerate (the answered user message is run again)',
    });
  return issues;
}

/** The body of `POST /api/sessions/{id}/messages/{messageId}/feedback` (and of `assistant_feedback`). */
export const FeedbackRequestSchema = z
  .object({
    /** Like every frame's: it comes back as `request_id`. */
    id: z
      .string()
      .regex(/^[\x21-\x7e]{1,128}$/, 'must be 1-128 printable ASCII characters without spaces')
      .optional(),
    /** `up`, `down`, or null to withdraw the rating. */
    rating: z.enum(['up', 'down']).nullable(),
    reasons: z.array(z.string().min(1).max(200)).max(20).optional(),
    comment: z.string().max(10_000).optional(),
  })
  .strict();
export type FeedbackRequest = z.infer<typeof FeedbackRequestSchema>;

const FEEDBACK_SHAPE: Shape = {
  kind: 'object',
  fields: { id: leaf, rating: leaf, reasons: leaf, comment: leaf },
};

/** A rating, validated (its field names may be camelCase or snake_case, as everywhere). */
export function parseFeedbackRequest(value: unknown): FeedbackRequest {
  if (!isPlainObject(value)) return parseOrThrow(FeedbackRequestSchema, value, 'feedback');
  const renames: Renames = new Map();
  const normalized = normalizeKeys(value, FEEDBACK_SHAPE, [], renames);
  return parseOrThrow(FeedbackRequestSchema, normalized, 'feedback', (path) => pathAsSent(path, renames));
}

/** Which message an `assistant_feedback` frame rates (its other fields are the rating). */
export const FeedbackTargetSchema = z
  .object({ session_id: SessionIdSchema, message_id: MessageIdSchema })
  .strict();

/** Which message an `assistant_feedback` frame rates. */
export function parseFeedbackTarget(value: unknown): { session_id: string; message_id: string } {
  return parseOrThrow(FeedbackTargetSchema, value, 'feedback');
}

/** The query of `GET /api/sessions/{id}/export`: none. */
export const ExportQuerySchema = z.object({}).strict();
