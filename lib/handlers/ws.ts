import type { Switchboard } from '../agents/index.ts';
import {
  type AuthorizerShape,
  hostSessionId,
  type Identity,
  offeredProtocols,
  SWITCHBOARD_PROTOCOL,
} from '../auth/index.ts';
import { answerRequest, cancel, continueTurn, rate, sendMessage } from '../commands/index.ts';
import type { Runtime } from '../config/index.ts';
import {
  BODY_LIMITS,
  parseChatRequest,
  parseContinueTarget,
  parseFeedbackTarget,
  parseJoinRequest,
  parseJsonBody,
  parseResolveRequest,
  parseResolveTarget,
  parseSessionTarget,
  WEBSOCKET_ROUTES,
  type WebSocketRouteKey,
} from '../contract/index.ts';
import { MalformedRequestError, ValidationError } from '../errors/index.ts';
import { limitFrame } from '../limits/index.ts';
import { ownedSession } from '../sessions/index.ts';
import {
  type ConnectionRecord,
  lastSeq,
  listEvents,
  markReplayed,
  putConnection,
  removeConnection,
  setHostContext,
  subscribe,
} from '../store/index.ts';
import { SpanKind } from '../telemetry/index.ts';
import { asSwitchboardError, errorFrame, framesOf, pushFrames } from '../transport/index.ts';
import {
  authorizerClaims,
  callerOf,
  errors,
  identify,
  pipeline,
  rateLimit,
  schemas,
  telemetry,
} from './middleware/index.ts';
import { lazyRuntime } from './runtime.ts';

/** The parts of an API Gateway WebSocket event that Switchboard reads. */
export interface WebSocketEvent {
  body?: string | null;
  /** On `$connect`: the upgrade request's headers, in the client's spelling. */
  headers?: Record<string, string | undefined> | null;
  isBase64Encoded?: boolean;
  requestContext: {
    routeKey: string;
    connectionId: string;
    connectedAt?: number;
    authorizer?: AuthorizerShape;
  };
}

/** A route response: the body goes back to the caller as a frame (two-way routes). */
export interface WebSocketResult {
  statusCode: number;
  body?: string;
  /** On `$connect`: the handshake's response headers (the chosen subprotocol). */
  headers?: Record<string, string>;
}

const REPLAY_PAGE = 200;

function connectionOf(rt: Runtime, event: WebSocketEvent, identity: Identity): ConnectionRecord {
  const connectedAt = event.requestContext.connectedAt ?? rt.clock();
  return {
    connectionId: event.requestContext.connectionId,
    user: identity.user,
    connectedAt: new Date(connectedAt).toISOString(),
    expiresAt: connectedAt + rt.settings.connections.maxLifetimeMs,
  };
}

/** Parses a frame's JSON and drops the routing key, which is the gateway's and not the body's. */
function bodyOf(event: WebSocketEvent): { body: Record<string, unknown>; requestId?: string } {
  const parsed = parseJsonBody(event.body, event.isBase64Encoded, {
    maxBytes: BODY_LIMITS.frame,
    what: 'frame',
  });
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('A frame must be a JSON object.', [
      { path: [], message: 'Expected an object' },
    ]);
  }
  const { action: _action, ...body } = parsed as Record<string, unknown>;
  return { body, requestId: typeof body.id === 'string' ? body.id : undefined };
}

/**
 * Sends a joining connection the log after `after`, a page of events in as few frames as fit: the
 * last seq sent, and whether that was the end of the log when it was read.
 */
async function replay(
  rt: Runtime,
  connectionId: string,
  sessionId: string,
  after: number,
): Promise<{ through: number; atEnd: boolean }> {
  let through = after;
  for (;;) {
    const page = await listEvents(rt, sessionId, through, REPLAY_PAGE);
    if (page.length > 0) {
      // Only what arrived counts as replayed: a streaming turn sends a joiner what comes after it.
      const sent = await pushFrames(rt, connectionId, framesOf(page));
      through = sent.through ?? through;
      if (sent.outcome !== 'sent') return { through, atEnd: false };
    }
    if (page.length < REPLAY_PAGE) return { through, atEnd: true };
  }
}

type Route = (rt: Runtime, app: Switchboard, event: WebSocketEvent, identity: Identity) => Promise<unknown>;

const ROUTES: Record<WebSocketRouteKey | '$connect' | '$disconnect' | '$default', Route> = {
  async $connect(rt, _app, event, identity) {
    await putConnection(
      rt,
      event.requestContext.connectionId,
      identity.user,
      event.requestContext.connectedAt ?? rt.clock(),
    );
  },
  async $disconnect(rt, _app, event) {
    await removeConnection(rt, event.requestContext.connectionId);
  },
  async assistant_message(rt, app, event, identity) {
    const request = parseChatRequest(bodyOf(event).body);
    // A socket's answer is its stream: waiting is for `POST /api/chat`.
    if (request.wait_ms !== undefined)
      throw new ValidationError('wait_ms is for POST /api/chat.', [
        { path: ['wait_ms'], message: 'only on POST /api/chat' },
      ]);
    const connection = connectionOf(rt, event, identity);
    const accepted = await sendMessage(rt, app, identity, {
      request,
      join: (sessionId) => subscribe(rt, sessionId, connection),
    });
    return { type: 'assistant:accepted', ...accepted };
  },
  async assistant_join_session(rt, _app, event, identity) {
    const request = parseJoinRequest(bodyOf(event).body);
    const session = await ownedSession(rt, identity, request.session_id);
    if (request.host_context) {
      const { attachments: _attachments, ...context } = request.host_context;
      await setHostContext(rt, session.sessionId, context);
    }
    // Joined before the replay, so an event written meanwhile arrives live or in the replay (or both:
    // hosts drop a seq they have already seen).
    await subscribe(rt, session.sessionId, connectionOf(rt, event, identity));
    const connectionId = event.requestContext.connectionId;
    const after = request.after_seq ?? 0;
    const { through, atEnd } = await replay(rt, connectionId, session.sessionId, after);
    await markReplayed(rt, session.sessionId, connectionId, through);
    return {
      type: 'assistant:joined',
      session_id: hostSessionId(session.sessionId),
      replayed_through: through,
      // A replay that sent events and read to the end knows where the log ends.
      last_seq: atEnd && through > after ? through : await lastSeq(rt, session.sessionId),
    };
  },
  async assistant_cancel(rt, app, event, identity) {
    // Every other field goes to the strict schema too, so an unknown one is a validation error.
    const { session_id, sessionId, ...rest } = bodyOf(event).body;
    const target = parseSessionTarget({ session_id: session_id ?? sessionId, ...rest });
    return { type: 'assistant:cancelled', ...(await cancel(rt, app, identity, target)) };
  },
  async assistant_continue(rt, app, event, identity) {
    const { session_id, sessionId, ...rest } = bodyOf(event).body;
    const target = parseContinueTarget({ session_id: session_id ?? sessionId, ...rest });
    const connection = connectionOf(rt, event, identity);
    const accepted = await continueTurn(rt, app, identity, {
      ...target,
      join: (ref) => subscribe(rt, ref, connection),
    });
    return { type: 'assistant:accepted', ...accepted };
  },
  async assistant_resolve_action(rt, app, event, identity) {
    const { session_id, action_id, sessionId, actionId, ...answer } = bodyOf(event).body;
    const ids = parseResolveTarget({ session_id: session_id ?? sessionId, action_id: action_id ?? actionId });
    // The ids, then the gate, then the answer: as the HTTP route does.
    const {
      answered: [answered],
    } = await answerRequest(rt, app, identity, {
      session_id: ids.session_id,
      action_ids: [ids.action_id],
      answers: () => [parseResolveRequest(answer)],
    });
    return { type: 'assistant:resolved', ...answered };
  },
  async assistant_feedback(rt, app, event, identity) {
    const { session_id, message_id, sessionId, messageId, ...rating } = bodyOf(event).body;
    const ids = parseFeedbackTarget({
      session_id: session_id ?? sessionId,
      message_id: message_id ?? messageId,
    });
    return {
      type: 'assistant:feedback',
      ...(await rate(rt, app, identity, { ...ids, rating: () => rating })),
    };
  },
  async $default(_rt, _app, event) {
    let action: unknown;
    try {
      action = (JSON.parse(event.body ?? '') as { action?: unknown }).action;
    } catch {
      throw new MalformedRequestError('A frame must be JSON with an "action".', [
        { path: [], message: 'Invalid JSON' },
      ]);
    }
    throw new ValidationError(
      `Unknown action ${JSON.stringify(action ?? null)}.`,
      [
        {
          path: ['action'],
          message: `Expected one of ${WEBSOCKET_ROUTES.join(', ')}`,
        },
      ],
      'unknown_action',
    );
  },
};

/**
 * The answer to an accepted `$connect`. A client that offered subprotocols (a browser sending its token
 * as one) must get one back or it drops the connection: `switchboard` is echoed when offered. The
 * token-bearing one never is, so the token does not travel back in a response header.
 */
function connected(event: WebSocketEvent): WebSocketResult {
  return offeredProtocols(event.headers).includes(SWITCHBOARD_PROTOCOL)
    ? { statusCode: 200, headers: { 'Sec-WebSocket-Protocol': SWITCHBOARD_PROTOCOL } }
    : { statusCode: 200 };
}

/** Frames are counted; connecting and leaving are not frames. */
const isFrame = (event: WebSocketEvent) =>
  event.requestContext.routeKey !== '$connect' && event.requestContext.routeKey !== '$disconnect';

/**
 * The WebSocket API's Lambda handler, routed on `requestContext.routeKey`. Each frame is counted
 * against its connection's and its user's rate limits before its route runs. A route's answer (or
 * its error, as an `assistant:error` frame) goes back to the caller as the route response.
 */
export function createWebSocketHandler(app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime('ws', runtime);
  return pipeline<WebSocketEvent, WebSocketResult>(
    [
      telemetry(
        rt,
        (event) => ({ connectionId: event.requestContext.connectionId }),
        (event) => ({ name: `WebSocket ${event.requestContext.routeKey}`, kind: SpanKind.SERVER }),
      ),
      errors((error, event): WebSocketResult => {
        // A refused connection has no body to carry the error: the upgrade's status says it.
        if (event.requestContext.routeKey === '$connect')
          return { statusCode: asSwitchboardError(error, rt().logger).status };
        let requestId: string | undefined;
        try {
          requestId = bodyOf(event).requestId;
        } catch {}
        const options = { maskServerErrors: app.maskServerErrors };
        return { statusCode: 200, body: JSON.stringify(errorFrame(error, rt().logger, requestId, options)) };
      }),
      schemas,
      identify(rt, app, authorizerClaims),
      // Every frame is counted, a malformed one too.
      rateLimit(rt, (r, event, caller) =>
        isFrame(event) ? limitFrame(r, event.requestContext.connectionId, caller) : undefined,
      ),
    ],
    async (event, context) => {
      const routeKey = event.requestContext.routeKey;
      const route = ROUTES[routeKey as keyof typeof ROUTES] ?? ROUTES.$default;
      const frame = await route(rt(), app, event, callerOf(context));
      if (routeKey === '$connect') return connected(event);
      return frame === undefined ? { statusCode: 200 } : { statusCode: 200, body: JSON.stringify(frame) };
    },
  );
}
