import type * as z from 'zod';
import {
  AgentsQuerySchema,
  ChatRequestSchema,
  ContinueRequestSchema,
  EventSeqSchema,
  EventsQuerySchema,
  MessagesQuerySchema,
  ResolveRequestSchema,
  SessionListSchema,
  SessionsQuerySchema,
} from '../contract/chat.ts';
import { HTTP_API_CORS } from '../contract/cors.ts';
import { Sha256Schema, UploadRequestSchema } from '../contract/files.ts';
import { IdSchema, SessionIdSchema } from '../contract/ids.ts';
import { ExportQuerySchema, FeedbackRequestSchema, MessageIdSchema } from '../contract/messages.ts';
import { RememberedToolNameSchema, RememberedToolsSchema } from '../contract/remembered.ts';
import { HTTP_ROUTES, type HttpRouteKey } from '../contract/routes.ts';
import { errorsByStatus } from './errors.ts';
import { type JsonSchema, jsonSchemaOf } from './json-schema.ts';

/** `sha256` of an upload request, as the document describes it. */
const UPLOAD_SHA256 = Sha256Schema.meta({
  description:
    "The base64 of the bytes' SHA-256 digest. The upload URL signs it as x-amz-checksum-sha256: the bucket takes these bytes and no others.",
});

import {
  AcceptedSchema,
  AgentListSchema,
  ErrorResponseSchema,
  EventSchema,
  EventsPageSchema,
  GatewayErrorSchema,
  ResolveAcceptedSchema,
} from './responses.ts';

/** The schemas the document names in `components.schemas`. */
const SCHEMAS = {
  ChatRequest: ChatRequestSchema,
  ResolveRequest: ResolveRequestSchema,
  ContinueRequest: ContinueRequestSchema,
  FeedbackRequest: FeedbackRequestSchema,
  UploadRequest: UploadRequestSchema.extend({ sha256: UPLOAD_SHA256 }),
  Accepted: AcceptedSchema,
  AgentList: AgentListSchema,
  SessionList: SessionListSchema,
  ResolveAccepted: ResolveAcceptedSchema,
  EventsPage: EventsPageSchema,
  Event: EventSchema,
  RememberedTools: RememberedToolsSchema,
  Error: ErrorResponseSchema,
  GatewayError: GatewayErrorSchema,
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof SCHEMAS;

/** The answers' schemas: read as what the server sends (zod's output), the requests' as what it takes. */
const RESPONSES: SchemaName[] = [
  'AgentList',
  'SessionList',
  'Accepted',
  'ResolveAccepted',
  'EventsPage',
  'Event',
  'RememberedTools',
  'Error',
  'GatewayError',
];

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

/** A success answer: with a schema where the server's real answers are checked against it. */
interface Ok {
  description: string;
  schema?: SchemaName;
  /** No body: a redirect. */
  empty?: boolean;
  /** No body and no header: done (`204`). */
  none?: boolean;
}

/** What the document says of one route, besides its errors (errors.ts). */
interface RouteDoc {
  summary: string;
  /** Where docs/protocol.md describes it. */
  anchor: string;
  path?: Record<string, z.ZodType>;
  query?: z.ZodType;
  body?: SchemaName;
  /** The body may be left out. */
  optionalBody?: boolean;
  ok: Record<number, Ok>;
}

const session = { id: SessionIdSchema };
const object = (what: string): Ok => ({ description: `${what} (fields in docs/protocol.md).` });

/** Every route of HTTP_ROUTES; a record, so a new route cannot be left out of the document. */
const ROUTES: Record<HttpRouteKey, RouteDoc> = {
  'GET /api/agents': {
    summary: 'The agents the caller may talk to: their id, name, description and suggestions.',
    anchor: 'get-apiagents',
    query: AgentsQuerySchema,
    ok: { 200: { description: 'The agents, and the default one.', schema: 'AgentList' } },
  },
  'POST /api/chat': {
    summary: 'Send a user message; creates the session on first use.',
    anchor: 'post-apichat',
    body: 'ChatRequest',
    ok: {
      200: object('With `wait_ms`: the turn closed in time, and this is its final response'),
      202: { description: 'Accepted: the turn is queued.', schema: 'Accepted' },
    },
  },
  'GET /api/sessions': {
    summary: "The caller's sessions, newest first, a page at a time.",
    anchor: 'get-apisessionslimitnbeforecursor',
    query: SessionsQuerySchema,
    ok: { 200: { description: 'A page of sessions, newest first.', schema: 'SessionList' } },
  },
  'GET /api/sessions/{id}': {
    summary: 'A session: its state, latest run, pending actions and spend.',
    anchor: 'get-apisessionsid',
    path: session,
    ok: { 200: object('The session') },
  },
  'GET /api/sessions/{id}/messages': {
    summary: "The session's messages, a page at a time.",
    anchor: 'get-apisessionsidmessagesaftermessage_idlimitn',
    path: session,
    query: MessagesQuerySchema,
    ok: { 200: object('`{session_id, messages, has_more, next_after}`') },
  },
  'GET /api/sessions/{id}/events': {
    summary: "The session's event log after a seq; with `wait`, a long poll.",
    anchor: 'get-apisessionsideventsafterseqlimitn',
    path: session,
    query: EventsQuerySchema,
    ok: { 200: { description: 'A page of the event log.', schema: 'EventsPage' } },
  },
  'GET /api/sessions/{id}/events/{seq}': {
    summary:
      'One event whole: what a frame or a page shows as its reference (`truncated: true`, `href`) when it is too large for them.',
    anchor: 'get-apisessionsideventsseq',
    path: { ...session, seq: EventSeqSchema },
    ok: {
      200: { description: 'The event, when it fits a page (1 MiB).', schema: 'Event' },
      303: { description: 'Larger: `location` reads it (valid 15 minutes).', empty: true },
    },
  },
  'POST /api/sessions/{id}/actions/{actionId}': {
    summary: 'Answer a request the turn waits on (an approval, a question, a client tool).',
    anchor: 'post-apisessionsidactionsactionid',
    path: { ...session, actionId: IdSchema },
    body: 'ResolveRequest',
    ok: {
      202: {
        description: 'Accepted: the run that hands the answer to the agent is queued.',
        schema: 'ResolveAccepted',
      },
    },
  },
  'POST /api/sessions/{id}/cancel': {
    summary:
      "Stop the session's turn, or withdraw the open approvals and questions of a paused session (a pending host call stays open).",
    anchor: 'post-apisessionsidcancel',
    path: session,
    ok: { 202: object('Cancelling, or withdrawn') },
  },
  'POST /api/sessions/{id}/continue': {
    summary:
      "Carry on the session's last turn, stopped at `max_turns` or `budget_reached`: the same loop resumes where it stopped, with no new user message.",
    anchor: 'post-apisessionsidcontinue',
    path: session,
    body: 'ContinueRequest',
    optionalBody: true,
    ok: { 202: { description: 'Accepted: the continuing run is queued.', schema: 'Accepted' } },
  },
  'DELETE /api/sessions/{id}': {
    summary: 'Delete the session and everything of it.',
    anchor: 'delete-apisessionsid',
    path: session,
    ok: { 202: object('`{session_id, status: "deleting"}`') },
  },
  'POST /api/files': {
    summary:
      "Store a file (the body, with ?name=) or ask for an upload URL bound to the bytes' size, type and SHA-256 (JSON).",
    anchor: 'post-apifiles',
    body: 'UploadRequest',
    ok: { 201: object('The file, or the file and its upload URL') },
  },
  'GET /api/files/{id}': {
    summary: 'A file of the caller.',
    anchor: 'get-apifilesid',
    path: { id: IdSchema },
    ok: { 200: object('The file') },
  },
  'DELETE /api/files/{id}': {
    summary: 'Delete a file of the caller.',
    anchor: 'delete-apifilesid',
    path: { id: IdSchema },
    ok: { 200: object('The file, deleted') },
  },
  'POST /api/sessions/{id}/messages/{messageId}/feedback': {
    summary: 'Rate an answer (or withdraw the rating).',
    anchor: 'post-apisessionsidmessagesmessageidfeedback',
    path: { ...session, messageId: MessageIdSchema },
    body: 'FeedbackRequest',
    ok: { 200: object('The rating as stored') },
  },
  'GET /api/sessions/{id}/export': {
    summary: 'The whole conversation, inline or (when too large for a response) through a link.',
    anchor: 'get-apisessionsidexport',
    path: session,
    query: ExportQuerySchema,
    ok: {
      200: object('The export'),
      303: { description: 'Too large for a response: `location` reads it (valid 15 minutes).', empty: true },
    },
  },
  'GET /api/sessions/{id}/messages/{messageId}/content': {
    summary:
      'One message whole: what a page lists as its reference (`truncated: true`, `content_ref`) when it is too large for a page.',
    anchor: 'get-apisessionsidmessagesmessageidcontent',
    path: { ...session, messageId: MessageIdSchema },
    ok: {
      200: object('The message as a page shows it, when it fits a page (1 MiB)'),
      303: { description: 'Larger: `location` reads it (valid 15 minutes).', empty: true },
    },
  },
  'GET /api/sessions/{id}/remembered-tools': {
    summary:
      'The tools remembered for the session (approved with `remember_for_session: true`): their later calls run without asking.',
    anchor: 'get-apisessionsidremembered-tools',
    path: session,
    ok: { 200: { description: 'The remembered tools, in the order remembered.', schema: 'RememberedTools' } },
  },
  'DELETE /api/sessions/{id}/remembered-tools/{name}': {
    summary: 'Forget a remembered tool: its next call in the session asks again.',
    anchor: 'delete-apisessionsidremembered-toolsname',
    path: { ...session, name: RememberedToolNameSchema },
    ok: { 204: { description: 'Forgotten.', none: true } },
  },
};

/** The prose, beside the generated document in docs/. */
const PROTOCOL = 'protocol.md';

/** The statuses API Gateway answers itself, in its own shape, on every route. */
const GATEWAY: Record<number, string> = {
  401: 'No bearer token, or one the JWT authoriser refused (API Gateway: `{"message":"Unauthorized"}`); a token that names no user, or a user or tenant with a control character.',
  429: "The stage's throttling (API Gateway: `Too Many Requests`).",
  500: 'The request or the answer over what a Lambda function takes (API Gateway: `Internal Server Error`).',
  503: 'The function did not answer within 30 seconds (API Gateway: `Service Unavailable`).',
};

function parameters(doc: RouteDoc): JsonSchema[] {
  const path = Object.entries(doc.path ?? {}).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    description:
      'An id that breaks its rule names nothing: the route answers 404, its issue naming the parameter.',
    schema: jsonSchemaOf(schema),
  }));
  const query = doc.query ? jsonSchemaOf(doc.query) : undefined;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  const fields = Object.entries((query?.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema,
    }),
  );
  return [...path, ...fields];
}

function errorResponses(key: HttpRouteKey): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  const statuses = new Set([...errorsByStatus(key).keys(), ...Object.keys(GATEWAY).map(Number)]);
  if (ROUTES[key].body) statuses.add(413);
  for (const status of [...statuses].sort()) {
    const codes = errorsByStatus(key).get(status) ?? [];
    const gateway =
      GATEWAY[status] ??
      (status === 413 ? 'A body over 10 MB (API Gateway: `Request Entity Too Large`).' : undefined);
    const description = [codes.map((c) => `\`${c}\``).join(', '), gateway].filter(Boolean).join('. ');
    const schema =
      codes.length === 0
        ? ref('GatewayError')
        : gateway
          ? { oneOf: [ref('Error'), ref('GatewayError')] }
          : ref('Error');
    responses[status] = {
      description,
      ...(codes.length > 0 && { 'x-error-codes': codes }),
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}

function operation(key: HttpRouteKey): JsonSchema {
  const doc = ROUTES[key];
  const ok = Object.fromEntries(
    Object.entries(doc.ok).map(([status, answer]) => [
      status,
      {
        description: answer.description,
        ...(answer.none
          ? {}
          : answer.empty
            ? { headers: { location: { schema: { type: 'string' } } } }
            : {
                content: {
                  'application/json': { schema: answer.schema ? ref(answer.schema) : { type: 'object' } },
                },
              }),
      },
    ]),
  );
  const files = key === 'POST /api/files';
  const params = parameters(doc);
  if (files)
    params.push({
      name: 'name',
      in: 'query',
      required: false,
      description: "The file's name: required when the body is the file itself.",
      schema: jsonSchemaOf(UploadRequestSchema.shape.name),
    });
  return {
    operationId: operationId(key),
    summary: doc.summary,
    externalDocs: { url: `${PROTOCOL}#${doc.anchor}` },
    ...(params.length > 0 && { parameters: params }),
    ...(doc.body && {
      requestBody: {
        required: !doc.optionalBody,
        ...(files && {
          description:
            'JSON asks for an upload URL; any other content type is the file itself (at most 4 MiB), its media type as content-type.',
        }),
        content: {
          'application/json': { schema: ref(doc.body) },
          // A Media Type Object has no description of its own: the schema carries it.
          ...(files && { '*/*': { schema: { description: 'The file itself.' } } }),
        },
      },
    }),
    responses: { ...ok, ...errorResponses(key) },
  };
}

/** `POST /api/sessions/{id}/cancel` → `postSessionsIdCancel`. */
export function operationId(key: HttpRouteKey): string {
  const [method = '', path = ''] = key.split(' ');
  const words = path
    .split('/')
    .filter((part) => part && part !== 'api')
    .map((part) => part.replace(/[{}]/g, ''));
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** The OpenAPI 3.1 document of the HTTP API, generated from the contract's zod schemas. */
export function openApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const key of HTTP_ROUTES) {
    const [method = '', path = ''] = key.split(' ');
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation(key) };
  }
  const schemas = Object.fromEntries(
    Object.entries(SCHEMAS).map(([name, schema]) => [
      name,
      jsonSchemaOf(schema, RESPONSES.includes(name as SchemaName) ? 'output' : 'input'),
    ]),
  );
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Switchboard HTTP API',
      version: '1',
      description: [
        'Generated from the zod schemas that validate requests (`npm run contract`); docs/protocol.md is the prose.',
        'Field names are given in snake_case; the contract also takes them in camelCase (and `page` for `host_context.view`).',
        "Answers with a schema are checked against the server's real answers in the tests; the others are described in words only.",
        `CORS: any origin, methods ${HTTP_API_CORS.allowMethods.join(', ')}.`,
      ].join('\n\n'),
    },
    servers: [
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        // The variables carry no description: swagger-parser's OpenAPI 3.1 schema refuses one there.
        description:
          "A deployment: the stack's `<id>HttpApiUrl` output, `apiId` the HTTP API's id and `region` the stack's.",
        variables: { apiId: { default: 'apiId' }, region: { default: 'us-east-1' } },
      },
      {
        url: '/',
        description:
          'The host that serves this document: the sandbox (`npm start`) serves it at `/api/openapi.json`.',
      },
    ],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "API Gateway's JWT authoriser on `Authorization`: the token's `sub` is the user, `tenant` (or `custom:tenant`) the tenant.",
        },
      },
      schemas,
    },
  };
}
