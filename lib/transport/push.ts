import { hostSessionId } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { ANSWER_LIMITS, answerBytes, eventPath } from '../contract/index.ts';
import { removeConnection, type SessionEvent } from '../store/index.ts';

/** How one send went: `gone` means API Gateway no longer knows the connection. */
export type PushOutcome = 'sent' | 'gone' | 'failed';

const encoder = new TextEncoder();

type AwsError = { name?: string; $metadata?: { httpStatusCode?: number } };

/** API Gateway no longer knows the connection (410): it is closed, whoever closed it. */
export function isGone(error: unknown): boolean {
  const e = error as AwsError;
  return e?.name === 'GoneException' || e?.$metadata?.httpStatusCode === 410;
}

/** API Gateway's management API throttles with 429 (`LimitExceededException`, or the SDK's throttling names). */
function isThrottled(error: unknown): boolean {
  const e = error as AwsError;
  return (
    e?.$metadata?.httpStatusCode === 429 ||
    e?.name === 'LimitExceededException' ||
    e?.name === 'ThrottlingException' ||
    e?.name === 'TooManyRequestsException'
  );
}

/**
 * Sends one frame (a value, or its JSON already encoded) to one connection. The SDK's own retry covers throttling and 5xx; a 410 is
 * final and reported as `gone`; anything else is logged and never thrown, since a dead socket
 * must not fail a turn.
 */
export async function pushToConnection(
  rt: Runtime,
  connectionId: string,
  frame: unknown,
): Promise<PushOutcome> {
  const data = frame instanceof Uint8Array ? frame : encoder.encode(JSON.stringify(frame));
  if (!rt.connections) return 'failed';
  try {
    const [client, { PostToConnectionCommand }] = await Promise.all([
      rt.connections(),
      import('../aws/sdk/connections/post.ts'),
    ]);
    await client.send(
      new PostToConnectionCommand({
        ConnectionId: connectionId,
        Data: data,
      }),
    );
    rt.metrics.add('BytesSent', data.byteLength);
    return 'sent';
  } catch (error) {
    if (isGone(error)) {
      rt.metrics.add('PostToConnectionGone', 1);
      return 'gone';
    }
    rt.metrics.add(isThrottled(error) ? 'PostToConnectionThrottled' : 'PostToConnectionFailed', 1);
    rt.logger.warn('PostToConnection failed', { connectionId, error: String(error) });
    return 'failed';
  }
}

/** A WebSocket message may be 128 KB; a frame of events stays below it with room to spare. */
const MAX_FRAME_BYTES = 120 * 1024;

/** An event as hosts see it: named by the host's own session id, not the session's ref. */
export function eventView(event: SessionEvent): SessionEvent {
  return { ...event, session_id: hostSessionId(event.session_id) };
}

/**
 * An event too large for where it goes (a frame, a page) as it is shown there: its envelope with
 * `data: {}`, `truncated: true` and `href`, where the host reads it whole
 * (`GET /api/sessions/{id}/events/{seq}`, a short-lived link when it is past an answer's bound).
 */
export function eventReference(event: SessionEvent) {
  return { ...event, data: {}, truncated: true as const, href: eventPath(event.session_id, event.seq) };
}

/** An event as a page of `GET /api/sessions/{id}/events` lists it: whole, or past {@link ANSWER_LIMITS}' `listedItem` its reference. */
export function listedEvent(stored: SessionEvent) {
  const event = eventView(stored);
  return answerBytes(event) <= ANSWER_LIMITS.listedItem ? event : eventReference(event);
}

/** An event's JSON inside a frame: the event itself, or, when it would not fit one WebSocket message, its reference. */
function eventJson(stored: SessionEvent): string {
  const event = eventView(stored);
  const whole = JSON.stringify(event);
  if (Buffer.byteLength(whole) <= MAX_FRAME_BYTES - 64) return whole;
  return JSON.stringify(eventReference(event));
}

const FRAME_HEAD = '{"type":"events","events":[';
const FRAME_TAIL = ']}';

/** A frame of events, encoded, the seq of the last event it carries and how many it carries. */
export interface EventFrame {
  data: Uint8Array;
  last: number;
  count: number;
}

/**
 * The frames that carry events (oldest first) to a host: `{"type":"events","events":[…]}`, as few as
 * fit within {@link MAX_FRAME_BYTES} each, encoded once for all connections. Each event is whole in
 * exactly one frame, and the frames are in seq order.
 */
export function framesOf(events: SessionEvent[]): EventFrame[] {
  const frames: EventFrame[] = [];
  let parts: string[] = [];
  let last = 0;
  let bytes = FRAME_HEAD.length + FRAME_TAIL.length;
  const close = () => {
    if (parts.length > 0)
      frames.push({
        data: encoder.encode(FRAME_HEAD + parts.join(',') + FRAME_TAIL),
        last,
        count: parts.length,
      });
    parts = [];
    bytes = FRAME_HEAD.length + FRAME_TAIL.length;
  };
  for (const event of events) {
    const json = eventJson(event);
    const size = Buffer.byteLength(json) + 1;
    if (bytes + size > MAX_FRAME_BYTES) close();
    parts.push(json);
    last = event.seq;
    bytes += size;
  }
  close();
  return frames;
}

/**
 * Sends frames to one connection in order; stops at the first that does not arrive (`gone` or
 * `failed`). `through` is the last seq of the frames that did, when any did.
 */
export async function pushFrames(
  rt: Runtime,
  connectionId: string,
  frames: EventFrame[],
): Promise<{ outcome: PushOutcome; through?: number }> {
  let through: number | undefined;
  for (const frame of frames) {
    const outcome = await pushToConnection(rt, connectionId, frame.data);
    if (outcome !== 'sent') return { outcome, through };
    rt.metrics.add('EventsSent', frame.count);
    through = frame.last;
  }
  return { outcome: 'sent', through };
}

/** Deletes the records of a connection API Gateway no longer knows; a failure is logged, never thrown. */
export async function forgetConnection(rt: Runtime, connectionId: string, sessionId: string): Promise<void> {
  await removeConnection(rt, connectionId, [sessionId]).catch((error: unknown) =>
    rt.logger.warn('Could not delete a gone connection', { connectionId, error: String(error) }),
  );
}
