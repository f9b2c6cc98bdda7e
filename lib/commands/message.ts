import type { ChatRequest } from '../contract/index.ts';
import { type Accepted, type BeforeEnqueue, submitTurn } from '../runs/index.ts';
import type { Command } from './types.ts';

/** What {@link sendMessage} takes: the parsed message and, on a socket, how the sender joins the session. */
export interface SendMessageInput {
  request: ChatRequest;
  /** Runs once the session is known, before the turn is queued (a WebSocket sender subscribes). */
  join?: BeforeEnqueue;
}

/** Sends a message (a new one, a regenerate or an edit): the turn is recorded and queued. */
export const sendMessage: Command<SendMessageInput, Accepted> = (rt, app, caller, input) =>
  submitTurn(rt, app, caller, input.request, input.join);
