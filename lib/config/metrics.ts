/**
 * Every metric the runtime records, with its CloudWatch unit: the one list that the functions, the
 * sandbox's collector, the construct's dashboard and docs/operations.md name them from.
 */
export const METRIC_UNITS = {
  /** A worker claimed a turn (a message or an answer) and is about to run its agent. */
  TurnsStarted: 'Count',
  /** A turn was closed, with dimension `StopReason` (`end_turn`, `requires_action`, `cancelled`, `error` …). */
  TurnsEnded: 'Count',
  /** A turn was closed as completed (`end_turn`, `max_turns`, `budget_reached` …). */
  TurnsCompleted: 'Count',
  /** A turn was closed as error: the agent threw, answered something invalid, or its worker died. */
  TurnsFailed: 'Count',
  /** From the message (or answer) being accepted to the first event the agent emitted. */
  TimeToFirstEvent: 'Milliseconds',
  /** From the worker's claim of a turn to its outcome being written. */
  TurnDuration: 'Milliseconds',
  /** Events delivered live to WebSocket connections (one per connection it reached). */
  EventsSent: 'Count',
  /** Bytes posted to WebSocket connections (frames of events, acknowledgements, errors). */
  BytesSent: 'Bytes',
  /** PostToConnection answered 410 Gone: the connection was dead and its records are removed. */
  PostToConnectionGone: 'Count',
  /** PostToConnection was still throttled after the SDK's retries: the frame did not arrive. */
  PostToConnectionThrottled: 'Count',
  /** PostToConnection failed for another reason (5xx after retries, network). */
  PostToConnectionFailed: 'Count',
  /** A pause was opened: an approval, a question or a host tool call now waits for the host. */
  PendingActionsOpened: 'Count',
  /** A pause was answered (approved, denied, answered, withdrawn). */
  PendingActionsResolved: 'Count',
  /** A pause lapsed: nobody answered it before it expired, and the sweep applied `hitl.onTimeout`. */
  PendingActionsExpired: 'Count',
  /** A new message was refused with 402 `budget_exceeded`. */
  BudgetRefusals: 'Count',
  /** Domain events that were not published: PutEvents failed after the SDK's retries, or refused the entry. */
  EventsNotPublished: 'Count',
  /** A turn went on without an MCP server's tools: its list could not be read (unreachable, refused, a protocol error). */
  McpServersUnavailable: 'Count',
  /** What the turns cost, in US dollars, as the agents' pricing says (counted once per run). */
  CostUsd: 'None',
} as const;

/** The name of one of the runtime's metrics. */
export type MetricName = keyof typeof METRIC_UNITS;

/** The dimensions a metric may carry besides `service`; only `TurnsEnded` has one (`StopReason`). */
export interface MetricDimensions {
  StopReason?: string;
}

/**
 * What the logic records metrics with: `Runtime.metrics`, a {@link MetricsRecorder} of lib/telemetry
 * (which publishes them as CloudWatch embedded metric format), or a test's recorder.
 */
export interface RuntimeMetrics {
  /** Records one value, published with the others by the next {@link RuntimeMetrics.flush}. */
  add(name: MetricName, value: number, dimensions?: MetricDimensions): void;
  /** Publishes what was recorded since the last flush; never throws. */
  flush(): Promise<void>;
}
