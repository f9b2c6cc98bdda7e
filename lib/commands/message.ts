import type { ChatRequest } from '../contract/index.ts';
import {
  type Accepted,
  type BeforeEnqueue,
  type ContinuationRequest,
  type RewriteRequest,
  submitContinuation,
  submitMessage,
  submitRewrite,
} from '../runs/index.ts';
import type { Command } from './types.ts';

/** What {@link sendMessage} takes. */
export interface MessageInput {
  /**
   * The message as the door parsed it (the body of `POST /api/chat`, an `assistant_message` frame,
   * AG-UI's last message): a new message, a regenerate or an edit, or a continuation.
   */
  request: ChatRequest;
  /**
   * How the sender follows the session, called once the request is recorded and before its run is
   * queued, so that it misses none of the run's events: a WebSocket sender subscribes its
   * connection. A door that reads the log instead (HTTP, AG-UI) passes none.
   */
  join?: BeforeEnqueue;
}

const isContinuation = (request: ChatRequest): request is ContinuationRequest =>
  request.tool_call_id !== undefined;

// The contract lets `mode` and `from_message_id` come only together, and never with `tool_call_id`.
const isRewrite = (request: ChatRequest): request is RewriteRequest =>
  request.mode !== undefined && request.from_message_id !== undefined;

/**
 * Sends a message into the caller's session (or a new one) and answers where its run will show up.
 * What the message is picks the one entry point of `lib/runs` that records and queues it: a
 * continuation (`tool_call_id`) hands the host call's result to the agent, a regenerate or an edit
 * (`mode`) replaces part of the conversation, anything else is a new turn. The three share the
 * checks and writes below them and never call each other.
 *
 * @example
 * const accepted = await sendMessage(rt, app, caller, { request: parseChatRequest(body) });
 * // { request_id, session_id, run_id, message_id, assistant_message_id, status: 'queued', duplicate }
 */
export const sendMessage: Command<MessageInput, Accepted> = (rt, app, caller, { request, join }) => {
  if (isContinuation(request)) return submitContinuation(rt, app, caller, request, join);
  if (isRewrite(request)) return submitRewrite(rt, app, caller, request, join);
  return submitMessage(rt, app, caller, request, join);
};
