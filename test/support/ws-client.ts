/**
 * The WebSocket host of the tests is the bench's (bench/support/ws-client.ts): the bench measures
 * with the same host the tests assert with, and depends on nothing of test/.
 */
export { type Frame, TestSocket, turnEnded, unpack } from '../../bench/support/ws-client.ts';
