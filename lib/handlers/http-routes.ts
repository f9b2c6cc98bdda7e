import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import {
  headerOf,
  hostSessionId,
  type Identity,
  ownerOf,
  requestContextOf,
  sessionRef,
} from '../auth/index.ts';
import { answerRequest, cancel, continueTurn, deleteSession, rate, sendMessage } from '../commands/index.ts';
import type { Runtime } from '../config/index.ts';
import {
  AgentsQuerySchema,
  ANSWER_LIMITS,
  answerBytes,
  BODY_LIMITS,
  contentTypeOf,
  EventSeqSchema,
  EventsQuerySchema,
  ExportQuerySchema,
  HTTP_ROUTES,
  type HttpRouteKey,
  ID_RULE,
  isId,
  isMessageId,
  isSessionId,
  MessagesQuerySchema,
  parseChatRequest,
  parseContinueRequest,
  parseJsonBody,
  parseResolveRequest,
  type RememberedTools,
  type SessionList,
  SessionsQuerySchema,
  UploadRequestSchema,
} from '../contract/index.ts';
import { type CodeOf, NotFoundError, parseOrThrow, ValidationError } from '../errors/index.ts';
import { exportSession } from '../export/index.ts';
import {
  createUpload,
  deleteOwnedFile,
  fileView,
  ownedFile,
  storeUpload,
  uploadLimit,
} from '../files/index.ts';
import { awaitFinal } from '../runs/index.ts';
import { listedMessage, messageView, ownedSession, sessionListView, sessionView } from '../sessions/index.ts';
import {
  forgetTool,
  getMessage,
  lastSeq,
  latestRun,
  linkedCopy,
  listActions,
  listEvents,
  listFeedback,
  listMessages,
  listOwnedSessions,
  listRememberedTools,
  openActions,
} from '../store/index.ts';
import { eventView, json, listedEvent } from '../transport/index.ts';
import { sessionBudget } from '../usage/index.ts';

/** What a route does: it parses the event, calls a command or reads, and renders the response. */
type RouteFn = (
  rt: Runtime,
  app: Switchboard,
  event: APIGatewayProxyEventV2,
  caller: Identity,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** One HTTP route: its API Gateway route key and what it does. */
export interface HttpRoute {
  key: HttpRouteKey;
  run: RouteFn;
}

/** A path parameter as text; a malformed percent-encoding is kept as sent (and then matches nothing). */
const param = (event: APIGatewayProxyEventV2, name: string) => {
  const raw = event.pathParameters?.[name] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
};

/**
 * A path id, under the one id rule (`IdSchema`). An id that breaks it cannot name anything, so it
 * is simply not found: a 404 with the route's code, whose issue names the path parameter.
 */
function pathId(
  event: APIGatewayProxyEventV2,
  name: string,
  code: CodeOf<404, 'not_found'>,
  what: string,
  valid: (id: string) => boolean = isId,
): string {
  const id = param(event, name);
  if (valid(id)) return id;
  const shown = id.length > 64 ? `${id.slice(0, 64)}…` : id;
  throw new NotFoundError(code, `${what} "${shown}" does not exist.`, [{ path: [name], message: ID_RULE }]);
}
const sessionIdOf = (event: APIGatewayProxyEventV2) =>
  pathId(event, 'id', 'session_not_found', 'Session', isSessionId);
const fileIdOf = (event: APIGatewayProxyEventV2) => pathId(event, 'id', 'file_not_found', 'File');

/** The events after `after`; with a wait, polls the log (a Query of one partition) until one comes. */
async function waitForEvents(rt: Runtime, sessionId: string, after: number, limit: number, waitMs: number) {
  const until = rt.clock() + waitMs;
  for (;;) {
    const events = await listEvents(rt, sessionId, after, limit);
    if (events.length > 0 || rt.clock() >= until) return events;
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, until - rt.clock())));
  }
}

/**
 * A page that stays within a Lambda response (at most 6 MB, else API Gateway answers 500): items
 * (each already within `listedItem`, or listed as its reference) are taken in order until they would
 * pass the answer's inline bound, always at least one; the caller says there is more.
 */
function withinBudget<T>(items: T[]): T[] {
  let bytes = 0;
  const page: T[] = [];
  for (const item of items) {
    bytes += answerBytes(item);
    if (page.length > 0 && bytes > ANSWER_LIMITS.inline) break;
    page.push(item);
  }
  return page;
}

/**
 * One item a page lists by reference (a message's `content_ref`, an event's `href`): inline when it
 * fits a page's item, else a 303 to a short-lived link to a copy of it in the bucket, so that any
 * item the listing referred to is read through a link.
 */
async function wholeItem(rt: Runtime, sessionId: string, item: unknown) {
  if (answerBytes(item) <= ANSWER_LIMITS.listedItem) return json(200, item);
  return seeOther(await linkedCopy(rt, sessionId, item));
}

/** A 303 to `location`, which the answer must not be cached without. */
const seeOther = (location: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 303,
  headers: { location, 'cache-control': 'no-store' },
});

/** A path's event seq: a whole number from 1 (as the log numbers events), else no event. */
function seqOf(event: APIGatewayProxyEventV2): number {
  const raw = param(event, 'seq');
  const parsed = EventSeqSchema.safeParse(raw);
  if (parsed.success) return Number(parsed.data);
  throw new NotFoundError('event_not_found', `Event "${raw.slice(0, 64)}" does not exist.`, [
    { path: ['seq'], message: parsed.error.issues[0]?.message ?? 'A seq is a whole number from 1.' },
  ]);
}

/** `POST /api/files`: JSON asks for a presigned upload URL; any other content type is the file itself. */
const postFile: RouteFn = async (rt, app, event, caller) => {
  const mediaType = contentTypeOf(headerOf(event.headers, 'content-type'));
  if (mediaType === 'application/json') {
    const body = parseJsonBody(event.body, event.isBase64Encoded, {
      maxBytes: BODY_LIMITS.uploadRequest,
      what: 'upload request',
    });
    return json(201, await createUpload(rt, caller, body, uploadLimit(rt, app)));
  }
  const name = event.queryStringParameters?.name;
  if (!name)
    throw new ValidationError('A file sent as the body needs ?name=.', [
      { path: ['name'], message: 'Required' },
    ]);
  // The same rule as the JSON form's `name`: the record keeps either.
  parseOrThrow(UploadRequestSchema.shape.name, name, 'file name', () => ['name']);
  const bytes = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  return json(201, await storeUpload(rt, caller, bytes, name, mediaType, uploadLimit(rt, app)));
};

/** A request's JSON body, read when the command asks for it (after the gate). */
const bodyOf = (event: APIGatewayProxyEventV2) => () => parseJsonBody(event.body, event.isBase64Encoded);

/** `GET /api/sessions/{id}/export`: the whole conversation, inline or (too large for a response) through the bucket. */
const exportRoute: RouteFn = async (rt, _app, event, caller) => {
  parseOrThrow(ExportQuerySchema, event.queryStringParameters ?? {}, 'query');
  const session = await ownedSession(rt, caller, sessionIdOf(event));
  const exported = await exportSession(rt, session);
  if (answerBytes(exported) <= ANSWER_LIMITS.inline) return json(200, exported);
  return seeOther(await linkedCopy(rt, session.sessionId, exported));
};

/** Every route of {@link HTTP_ROUTES}; a record, so a route the CDK stack declares cannot be left out here. */
const ROUTES: Record<HttpRouteKey, RouteFn> = {
  async 'GET /api/agents'(_rt, app, event, caller) {
    parseOrThrow(AgentsQuerySchema, event.queryStringParameters ?? {}, 'query');
    const agents = await app.agentsFor(requestContextOf(caller));
    return json(200, {
      agents: agents.map((agent) => agent.summary),
      default_agent_id: app.defaultAgentId() ?? null,
    });
  },
  async 'POST /api/chat'(rt, app, event, caller) {
    const request = parseChatRequest(bodyOf(event)());
    const accepted = await sendMessage(rt, app, caller, { request });
    // Opt-in: wait for the turn to close and answer with its final response (202 if it has not).
    const ref = sessionRef(caller, accepted.session_id);
    const final = request.wait_ms ? await awaitFinal(rt, ref, accepted, request.wait_ms) : undefined;
    return final ? json(200, final) : json(202, accepted);
  },
  async 'GET /api/sessions'(rt, _app, event, caller) {
    const query = parseOrThrow(SessionsQuerySchema, event.queryStringParameters ?? {}, 'query');
    const owner = ownerOf(caller);
    const { sessions, more } = await listOwnedSessions(rt, owner, {
      limit: query.limit,
      ...(query.before && {
        before: { createdAt: query.before.createdAt, sessionId: sessionRef(caller, query.before.sessionId) },
      }),
    });
    const last = sessions.at(-1);
    return json(200, {
      sessions: sessions.map(sessionListView),
      has_more: more,
      next_before: more && last ? `${last.createdAt}~${hostSessionId(last.sessionId)}` : null,
    } satisfies SessionList);
  },
  async 'GET /api/sessions/{id}'(rt, app, event, caller) {
    const session = await ownedSession(rt, caller, sessionIdOf(event));
    const [run, open, agent] = await Promise.all([
      latestRun(rt, session.sessionId),
      openActions(rt, session.sessionId),
      app.resolveAgent(session.agentId, requestContextOf(caller)),
    ]);
    return json(200, sessionView(session, run, open, sessionBudget(app.budgetFor(agent), session)));
  },
  async 'GET /api/sessions/{id}/messages'(rt, _app, event, caller) {
    const query = parseOrThrow(MessagesQuerySchema, event.queryStringParameters ?? {}, 'query');
    const session = await ownedSession(rt, caller, sessionIdOf(event));
    const [messages, actions, ratings] = await Promise.all([
      // One more than the page, to know whether there is a next one. Replaced messages are left out.
      listMessages(rt, session.sessionId, { after: query.after, limit: query.limit + 1, current: true }),
      listActions(rt, session.sessionId),
      listFeedback(rt, session.sessionId),
    ]);
    const page = withinBudget(
      messages
        .slice(0, query.limit)
        .map((m) => listedMessage(messageView(m, actions, ratings.get(m.messageId)), session.sessionId)),
    );
    const hasMore = messages.length > page.length;
    return json(200, {
      session_id: hostSessionId(session.sessionId),
      messages: page,
      has_more: hasMore,
      next_after: hasMore ? (page.at(-1)?.id ?? null) : null,
    });
  },
  async 'GET /api/sessions/{id}/events'(rt, _app, event, caller) {
    const query = parseOrThrow(EventsQuerySchema, event.queryStringParameters ?? {}, 'query');
    const session = await ownedSession(rt, caller, sessionIdOf(event));
    const events = withinBudget(
      (await waitForEvents(rt, session.sessionId, query.after, query.limit, query.wait * 1000)).map(
        listedEvent,
      ),
    );
    const last = await lastSeq(rt, session.sessionId);
    return json(200, {
      session_id: hostSessionId(session.sessionId),
      events,
      last_seq: last,
      has_more: (events.at(-1)?.seq ?? last) < last,
    });
  },
  async 'GET /api/sessions/{id}/events/{seq}'(rt, _app, event, caller) {
    const session = await ownedSession(rt, caller, sessionIdOf(event));
    const seq = seqOf(event);
    const [found] = await listEvents(rt, session.sessionId, seq - 1, 1);
    if (found?.seq !== seq)
      throw new NotFoundError('event_not_found', `Event ${seq} of this session does not exist.`, [
        { path: ['seq'], message: 'No event of the session has this seq.' },
      ]);
    return wholeItem(rt, session.sessionId, eventView(found));
  },
  async 'POST /api/sessions/{id}/actions/{actionId}'(rt, app, event, caller) {
    const session_id = sessionIdOf(event);
    const action_id = pathId(event, 'actionId', 'action_not_found', 'Request');
    // The body is read only once the gate has let the caller in.
    const {
      answered: [answered],
    } = await answerRequest(rt, app, caller, {
      session_id,
      action_ids: [action_id],
      answers: () => [parseResolveRequest(bodyOf(event)())],
    });
    return json(202, answered);
  },
  async 'POST /api/sessions/{id}/cancel'(rt, app, event, caller) {
    return json(202, await cancel(rt, app, caller, { session_id: sessionIdOf(event) }));
  },
  async 'POST /api/sessions/{id}/continue'(rt, app, event, caller) {
    const session_id = sessionIdOf(event);
    // The body is optional: `{ "id": … }` names the request, for a retry.
    const body = event.body ? parseContinueRequest(bodyOf(event)()) : {};
    return json(202, await continueTurn(rt, app, caller, { session_id, ...body }));
  },
  async 'DELETE /api/sessions/{id}'(rt, app, event, caller) {
    return json(202, await deleteSession(rt, app, caller, { session_id: sessionIdOf(event) }));
  },
  'POST /api/files': postFile,
  async 'GET /api/files/{id}'(rt, _app, event, caller) {
    return json(200, fileView(await ownedFile(rt, caller, fileIdOf(event))));
  },
  async 'DELETE /api/files/{id}'(rt, _app, event, caller) {
    return json(200, await deleteOwnedFile(rt, caller, fileIdOf(event)));
  },
  async 'POST /api/sessions/{id}/messages/{messageId}/feedback'(rt, app, event, caller) {
    const session_id = sessionIdOf(event);
    const message_id = pathId(event, 'messageId', 'message_not_found', 'Message', isMessageId);
    return json(200, await rate(rt, app, caller, { session_id, message_id, rating: bodyOf(event) }));
  },
  'GET /api/sessions/{id}/export': exportRoute,
  async 'GET /api/sessions/{id}/messages/{messageId}/content'(rt, _app, event, caller) {
    const session = await ownedSession(rt, caller, sessionIdOf(event));
    const messageId = pathId(event, 'messageId', 'message_not_found', 'Message', isMessageId);
    const [message, actions, ratings] = await Promise.all([
      getMessage(rt, session.sessionId, messageId),
      listActions(rt, session.sessionId),
      listFeedback(rt, session.sessionId),
    ]);
    if (!message)
      throw new NotFoundError('message_not_found', `Message "${messageId}" does not exist.`, [
        { path: ['messageId'], message: 'No message of the session has this id.' },
      ]);
    return wholeItem(rt, session.sessionId, messageView(message, actions, ratings.get(messageId)));
  },
  async 'GET /api/sessions/{id}/remembered-tools'(rt, _app, event, caller) {
    const session = await ownedSession(rt, caller, sessionIdOf(event));
    const tools = await listRememberedTools(rt, session);
    const body: RememberedTools = {
      session_id: hostSessionId(session.sessionId),
      tools: tools.map((t) => ({ name: t.name, remembered_at: t.rememberedAt, actor: t.actor })),
    };
    return json(200, body);
  },
  async 'DELETE /api/sessions/{id}/remembered-tools/{name}'(rt, _app, event, caller) {
    const session = await ownedSession(rt, caller, sessionIdOf(event));
    const name = param(event, 'name');
    if (!(await forgetTool(rt, session, name))) {
      const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
      throw new NotFoundError('tool_not_remembered', `Tool "${shown}" is not remembered for this session.`, [
        { path: ['name'], message: 'No tool of this name is remembered for the session.' },
      ]);
    }
    return { statusCode: 204 };
  },
};

/** The routes as a list, in the order of {@link HTTP_ROUTES}. */
// Marked pure so that a bundle of another function, which never reads the table, drops every route with it.
export const HTTP_ROUTE_TABLE: HttpRoute[] = /* @__PURE__ */ HTTP_ROUTES.map((key) => ({
  key,
  run: ROUTES[key],
}));
