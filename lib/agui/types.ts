/**
 * An AG-UI event as it goes on the wire. Its shapes are AG-UI's (`@ag-ui/core`'s `EventType` and
 * event types); the end-to-end tests check every stream Switchboard writes with the real client's
 * `verifyEvents`, so they are not described a second time here.
 */
export interface AguiEvent {
  type: string;
  [field: string]: unknown;
}

/**
 * What the client already holds of a run, read from the `messages` it posts: a client that lost its
 * connection and posts the same run again gets only the rest.
 */
export interface ClientKnows {
  /** Characters of each assistant message's text, by message id. */
  text: Map<string, number>;
  /** Tool calls it has (on its assistant messages) and tool calls it has a result for. */
  toolCalls: Set<string>;
  toolResults: Set<string>;
}

/** An open request of the session, as an interrupt needs it. */
export interface OpenRequest {
  id: string;
  kind: string;
  action: Record<string, unknown>;
  expiresAt: number;
}

/**
 * Where the endpoint writes its answer: a status and headers once, then the body in pieces. On AWS
 * the Lambda response stream of a function URL; in the sandbox the gateway's socket.
 */
export interface ResponseSink {
  start(statusCode: number, headers: Record<string, string>): void;
  write(chunk: string): void;
  end(): void;
  /** True once the client went away (or the sink refused more): the endpoint stops reading the log. */
  readonly closed: boolean;
}
