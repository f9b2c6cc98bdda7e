/**
 * The actions a caller takes, free of any transport: HTTP routes, WebSocket actions and the AG-UI
 * endpoint parse their input into these and render what they answer. A new door calls the same ones.
 */

export type { Accepted, Answered } from '../runs/index.ts';
export { type AnswerInput, type AnswerOutcome, answerRequest } from './answer.ts';
export { type MessageInput, sendMessage } from './message.ts';
export { type RateInput, rate } from './rate.ts';
export { type ContinueInput, cancel, continueTurn, deleteSession } from './session.ts';
export type { Command, SessionInput } from './types.ts';
