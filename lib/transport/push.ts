import { PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { hostSessionId } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { removeConnection, type SessionEvent, subscribers } from '../store/index.ts';

/** How one send went: `gone` means API Gateway no longer knows the connection. */
export type PushOutcome = 'sent' | 'gone' | 'failed';

const encoder = new TextEncoder();

function isGone(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'GoneException' || e?.$metadata?.httpStatusCode === 410;
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
    await rt.connections.send(
      new PostToConnectionCommand({
        ConnectionId: connectionId,
        Data: data,
      }),
    );
    return 'sent';
  } catch (error) {
    if (isGone(error)) return 'gone';
    rt.logger.warn('PostToConnection failed', { connectionId, error: String(error) });
    return 'failed';
  }
}

/** A WebSocket message may be 128 KB; an event frame stays below it with room to spare. */
const MAX_FRAME_BYTES = 120 * 1024;

/** An event as hosts see it: named by the host's own session id, not the session's ref. */
export function eventView(event: SessionEvent): SessionEvent {
  return { ...event, session_id: hostSessionId(event.session_id) };
}

/**
 * The frame of an event, encoded once for all its connections: the event itself, or, when it would
 * not fit one WebSocket message, its envelope with `data: {}`, `truncated: true` and `href`, where
 * the host reads it over HTTP.
 */
export function frameOf(stored: SessionEvent): Uint8Array {
  const event = eventView(stored);
  const whole = encoder.encode(JSON.stringify(event));
  if (whole.byteLength <= MAX_FRAME_BYTES) return whole;
  const href = `/api/sessions/${encodeURIComponent(event.session_id)}/events?after=${event.seq - 1}&limit=1`;
  return encoder.encode(JSON.stringify({ ...event, data: {}, truncated: true, href }));
}

/** Sends an event to every connection joined to its session; a gone connection's records are deleted. */
export async function broadcast(rt: Runtime, event: SessionEvent): Promise<void> {
  const connectionIds = await subscribers(rt, event.session_id);
  const frame = frameOf(event);
  await Promise.all(
    connectionIds.map(async (connectionId) => {
      if ((await pushToConnection(rt, connectionId, frame)) === 'gone') {
        await removeConnection(rt, connectionId, [event.session_id]).catch((error: unknown) =>
          rt.logger.warn('Could not delete a gone connection', { connectionId, error: String(error) }),
        );
      }
    }),
  );
}
