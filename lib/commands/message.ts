import type { ChatRequest } from '../contract/index.ts';
import type { Accepted, submitTurn } from '../runs/index.ts';
import type { Command } from './types.ts';

/** Fails to compile when `T` stops being a command. */
type CommandOf<I, O, T extends Command<I, O>> = T;

/**
 * `sendMessage` (a new message, a regenerate or an edit: the turn is recorded and queued) is
 * `submitTurn` itself, whose input is the parsed `ChatRequest`; a WebSocket sender passes a fifth
 * argument, how it joins the session before the turn is queued.
 */
export type SendMessage = CommandOf<ChatRequest, Accepted, typeof submitTurn>;
