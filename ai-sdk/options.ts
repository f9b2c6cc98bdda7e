import type { ClientOptions, EventOf, HostContextInput, SwitchboardClient } from '../client/index.ts';

/**
 * Options of {@link SwitchboardChatTransport}: the client's options (`url`, `wsUrl`, `token`, …) or a
 * client to share, and what every message of the chat carries.
 *
 * @example
 * ```ts
 * const options: SwitchboardChatTransportOptions = { url: 'http://127.0.0.1:3000', agentId: 'demo' };
 * ```
 */
export interface SwitchboardChatTransportOptions extends Partial<ClientOptions> {
  /** A client to use instead of making one (the transport then leaves it open on `close()`). */
  client?: SwitchboardClient;
  /** The agent that serves a new chat (unless exactly one is registered). */
  agentId?: string;
  /**
   * What the host shows and can do, sent with each message (docs/host-contract.md): as it is, or a
   * function read at each send, for a page whose view changes.
   */
  hostContext?: HostContextInput | (() => HostContextInput | undefined);
  /** The Switchboard session of a chat; the chat's id by default. */
  sessionId?: (chatId: string) => string;
}

/**
 * What a streamed answer's `finish` chunk puts in the message's `metadata`: the turn's usage (with
 * its cost), why it stopped, and what the session has spent; and, on a message `loadMessages` read,
 * the rating this user gave it.
 *
 * @example
 * ```ts
 * const cost = (message.metadata as SwitchboardMessageMetadata | undefined)?.usage?.costUsd;
 * ```
 */
export interface SwitchboardMessageMetadata {
  usage?: EventOf<'session.status_idle'>['data']['usage'];
  stopReason?: EventOf<'session.status_idle'>['data']['stop_reason'];
  status?: EventOf<'session.status_idle'>['data']['status'];
  spentUsd?: number;
  /** The rating this user gave the answer (`POST /api/sessions/{id}/messages/{messageId}/feedback`). */
  rating?: 'up' | 'down';
}
