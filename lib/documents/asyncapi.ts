import type * as z from 'zod';
import {
  ChatRequestSchema,
  JoinRequestSchema,
  ResolveRequestSchema,
  ResolveTargetSchema,
  SessionTargetSchema,
} from '../contract/chat.ts';
import { FeedbackRequestSchema, FeedbackTargetSchema } from '../contract/messages.ts';
import { WEBSOCKET_ROUTES, type WebSocketRouteKey } from '../contract/routes.ts';
import { type JsonSchema, jsonSchemaOf, withFields } from './json-schema.ts';
import {
  AcceptedFrameSchema,
  ErrorFrameSchema,
  EventsFrameSchema,
  JoinedFrameSchema,
  ResolvedFrameSchema,
} from './responses.ts';

/** What the document says of one action: its body, and the frame it is answered with. */
interface ActionDoc {
  summary: string;
  /** The frame's fields besides `action`: the body schema, and the ids the HTTP route has in its path. */
  body: z.ZodType;
  target?: z.ZodType;
  /** The route response's `type`, and its schema where the server's real answers are checked against one. */
  reply: string;
  replySchema?: z.ZodType;
  replyDescription: string;
}

/** Every action of WEBSOCKET_ROUTES; a record, so a new action cannot be left out of the document. */
const ACTIONS: Record<WebSocketRouteKey, ActionDoc> = {
  assistant_message: {
    summary: 'Send a user message (the body of `POST /api/chat`, without `wait_ms`).',
    body: ChatRequestSchema,
    reply: 'assistant:accepted',
    replySchema: AcceptedFrameSchema,
    replyDescription: 'The message is accepted: the turn is queued.',
  },
  assistant_join_session: {
    summary:
      'Join the connection to a session: its stored events after `after_seq` first, then the live ones.',
    body: JoinRequestSchema,
    reply: 'assistant:joined',
    replySchema: JoinedFrameSchema,
    replyDescription: 'Joined, after the stored events were sent.',
  },
  assistant_resolve_action: {
    summary: 'Answer a pending request (the body of `POST /api/sessions/{id}/actions/{actionId}`).',
    body: ResolveRequestSchema,
    target: ResolveTargetSchema,
    reply: 'assistant:resolved',
    replySchema: ResolvedFrameSchema,
    replyDescription: "The answer is accepted: the fields of the HTTP route's `202`.",
  },
  assistant_cancel: {
    summary: "Stop the session's turn (as `POST /api/sessions/{id}/cancel`).",
    body: SessionTargetSchema,
    reply: 'assistant:cancelled',
    replyDescription: "The fields of the HTTP route's `202`.",
  },
  assistant_continue: {
    summary:
      "Carry on the session's last turn, stopped at `max_turns` or `budget_reached` (as `POST /api/sessions/{id}/continue`).",
    body: SessionTargetSchema,
    reply: 'assistant:accepted',
    replySchema: AcceptedFrameSchema,
    replyDescription: 'The continue is accepted: the continuing run is queued.',
  },
  assistant_feedback: {
    summary: 'Rate an answer (the body of `POST /api/sessions/{id}/messages/{messageId}/feedback`).',
    body: FeedbackRequestSchema,
    target: FeedbackTargetSchema,
    reply: 'assistant:feedback',
    replyDescription: "The fields of the HTTP route's `200`.",
  },
};

/** An action's frame: its body with `action` (and the target's ids), as one JSON Schema. */
function frameSchema(action: WebSocketRouteKey): JsonSchema {
  const doc = ACTIONS[action];
  const target = doc.target ? jsonSchemaOf(doc.target) : { properties: {}, required: [] };
  return withFields(
    jsonSchemaOf(doc.body),
    { action: { const: action }, ...(target.properties as Record<string, JsonSchema>) },
    ['action', ...(target.required as string[])],
  );
}

/** A reply's schema: the checked one, or its `type` and whatever fields the prose describes. */
function replySchema(doc: ActionDoc): JsonSchema {
  if (doc.replySchema) return jsonSchemaOf(doc.replySchema, 'output');
  return { type: 'object', properties: { type: { const: doc.reply } }, required: ['type'] };
}

const pascal = (name: string) =>
  name
    .split(/[_:]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** The AsyncAPI 3.1 document of the WebSocket API, generated from the contract's zod schemas. */
export function asyncApiDocument(): JsonSchema {
  const messages: Record<string, JsonSchema> = {};
  const operations: Record<string, JsonSchema> = {};
  const ref = (name: string) => ({ $ref: `#/channels/socket/messages/${name}` });
  for (const action of WEBSOCKET_ROUTES) {
    const doc = ACTIONS[action];
    const request = pascal(action);
    const reply = pascal(doc.reply);
    messages[request] = {
      name: action,
      summary: doc.summary,
      contentType: 'application/json',
      payload: frameSchema(action),
    };
    messages[reply] ??= {
      name: doc.reply,
      summary: doc.replyDescription,
      contentType: 'application/json',
      payload: replySchema(doc),
    };
    operations[action] = {
      action: 'send',
      channel: { $ref: '#/channels/socket' },
      summary: doc.summary,
      messages: [ref(request)],
      reply: { channel: { $ref: '#/channels/socket' }, messages: [ref(reply), ref('AssistantError')] },
    };
  }
  messages.AssistantError = {
    name: 'assistant:error',
    summary:
      'Any frame that cannot be applied (a malformed frame, an unknown field or action, a refused request): `error.code` is the code the HTTP API would answer.',
    contentType: 'application/json',
    payload: jsonSchemaOf(ErrorFrameSchema, 'output'),
  };
  messages.Events = {
    name: 'events',
    summary:
      "A session's events, one frame per connection per flush window, in seq order: each event's `data` is the event type's own (docs/protocol.md#events).",
    contentType: 'application/json',
    payload: jsonSchemaOf(EventsFrameSchema, 'output'),
  };
  operations.receiveEvents = {
    action: 'receive',
    channel: { $ref: '#/channels/socket' },
    summary: 'The events of every session the connection joined (by a message or a join).',
    messages: [ref('Events')],
  };
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Switchboard WebSocket API',
      version: '1',
      description: [
        'Generated from the zod schemas that validate frames (`npm run contract`); docs/protocol.md is the prose.',
        'Every frame a host sends is a JSON object whose `action` picks the route; each is answered with one frame, its route response or `assistant:error`.',
        'Field names are given in snake_case; the contract also takes them in camelCase.',
        'A frame is at most 32 KB as a browser sends it (128 KB in all); the connection closes after 10 minutes idle and after 2 hours.',
      ].join('\n\n'),
    },
    channels: {
      socket: {
        address: '/',
        title: 'The WebSocket API stage (`/ws` in the sandbox)',
        messages,
      },
    },
    operations,
    components: {
      securitySchemes: {
        subprotocol: {
          type: 'httpApiKey',
          name: 'Sec-WebSocket-Protocol',
          in: 'header',
          description:
            'A browser offers the subprotocols `switchboard` and `switchboard.bearer.<jwt>`; the server answers `switchboard` and never echoes the token.',
        },
        query: {
          type: 'httpApiKey',
          name: 'token',
          in: 'query',
          description: 'The JWT as `?token=<jwt>` on the connect URL.',
        },
      },
    },
  };
}
