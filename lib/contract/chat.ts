import { z } from 'zod';
import { MalformedRequestError, parseOrThrow } from '../errors/index.ts';

/** Request ids double as SQS deduplication ids: 1-128 printable ASCII characters. */
export const RequestIdSchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,128}$/, 'must be 1-128 printable ASCII characters without spaces');

/** Session ids are chosen by the host on first use, so they are held to a safe alphabet. */
export const SessionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'must be 1-128 letters, digits, "_", ".", ":" or "-"');

/** The body of `POST /api/chat` and of the `assistant_message` WebSocket action. */
export const ChatRequestSchema = z
  .object({
    id: RequestIdSchema.optional(),
    session_id: SessionIdSchema.optional(),
    agent_id: z.string().min(1).max(128).optional(),
    content: z.string().min(1, 'must not be empty').max(100_000),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** The body of the `assistant_join_session` WebSocket action (without `action`). */
export const JoinRequestSchema = z
  .object({
    session_id: SessionIdSchema,
    after_seq: z.number().int().nonnegative().optional(),
  })
  .strict();
export type JoinRequest = z.infer<typeof JoinRequestSchema>;

/** The query of `GET /api/sessions/{id}/events`. */
export const EventsQuerySchema = z
  .object({
    after: z.coerce.number().int().nonnegative().default(0),
    limit: z.coerce.number().int().min(1).max(1000).default(500),
  })
  .strict();

/** Parses a JSON body; a body that is not JSON is a 400, never a 500. */
export function parseJsonBody(body: string | undefined | null, isBase64 = false): unknown {
  if (body === undefined || body === null || body === '')
    throw new MalformedRequestError('The request has no body.');
  const text = isBase64 ? Buffer.from(body, 'base64').toString('utf8') : body;
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedRequestError('The request body is not valid JSON.');
  }
}

/** A chat request, validated. */
export function parseChatRequest(value: unknown): ChatRequest {
  return parseOrThrow(ChatRequestSchema, value, 'message');
}

/** A join request, validated. */
export function parseJoinRequest(value: unknown): JoinRequest {
  return parseOrThrow(JoinRequestSchema, value, 'join request');
}
