import type { SwitchboardEvent } from '../client/index.ts';
import type {
  ChatMessage,
  ChatPart,
  FilePart,
  HostActionPart,
  RequestPart,
  TurnError,
  WarningPart,
} from './types.ts';

/**
 * A message as the reducer keeps it: the message, and where the current run's parts begin. A host
 * action's continuation is another run that goes on in the same message; its `final_response`
 * carries that run's text only, so it replaces only the text parts from there on.
 */
export interface Draft {
  message: ChatMessage;
  segmentRun: string;
  segmentStart: number;
}

/**
 * The messages of a conversation as an immutable list, with the drafts they come from, and the
 * assistant message each run wrote to (where its `session.error` goes).
 */
export interface Conversation {
  order: string[];
  drafts: Map<string, Draft>;
  runs: Map<string, string>;
}

/**
 * An empty conversation.
 *
 * @example
 * ```ts
 * let conversation = emptyConversation();
 * ```
 */
export const emptyConversation = (): Conversation => ({ order: [], drafts: new Map(), runs: new Map() });

const joinText = (parts: ChatPart[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

function withParts(draft: Draft, parts: ChatPart[], extra: Partial<ChatMessage> = {}): Draft {
  return { ...draft, message: { ...draft.message, ...extra, parts, text: joinText(parts) } };
}

/** A copy of the conversation with one draft changed (or added at the end). */
function put(conversation: Conversation, draft: Draft): Conversation {
  const drafts = new Map(conversation.drafts);
  const known = drafts.has(draft.message.id);
  drafts.set(draft.message.id, draft);
  return {
    ...conversation,
    order: known ? conversation.order : [...conversation.order, draft.message.id],
    drafts,
  };
}

/** A copy of the conversation that knows `runId` wrote to the assistant message `messageId`. */
function link(conversation: Conversation, runId: string, messageId: string): Conversation {
  if (!runId || conversation.runs.get(runId) === messageId) return conversation;
  return { ...conversation, runs: new Map(conversation.runs).set(runId, messageId) };
}

/** The assistant events of the log: each names the message it goes to. */
const ASSISTANT_EVENTS = new Set<SwitchboardEvent['type']>([
  'agent.message.delta',
  'agent.tool_use',
  'agent.tool_result',
  'agent.warning',
  'tool_call',
  'action.required',
  'final_response',
]);

/** The assistant draft of `id`, made when it is new; a new run starts a new segment. */
function assistant(conversation: Conversation, id: string, runId: string): Draft {
  const draft = conversation.drafts.get(id);
  if (!draft)
    return {
      message: {
        id,
        role: 'assistant',
        parts: [],
        text: '',
        runId,
        state: 'streaming',
        rating: null,
        errors: [],
      },
      segmentRun: runId,
      segmentStart: 0,
    };
  if (draft.segmentRun === runId) return draft;
  return {
    message: { ...draft.message, state: 'streaming' },
    segmentRun: runId,
    segmentStart: draft.message.parts.length,
  };
}

/** Changes the part `find` matches in whichever message holds it. */
function updatePart(
  conversation: Conversation,
  messageId: string,
  find: (part: ChatPart) => boolean,
  change: (part: ChatPart) => ChatPart,
): Conversation {
  const draft = conversation.drafts.get(messageId);
  if (!draft) return conversation;
  const index = draft.message.parts.findIndex(find);
  if (index < 0) return conversation;
  const parts = [...draft.message.parts];
  parts[index] = change(parts[index] as ChatPart);
  return put(conversation, withParts(draft, parts));
}

/**
 * The conversation after one event of the log, as a new value (nothing is changed in place, so a
 * render that holds the previous one never sees it move).
 *
 * @example
 * ```ts
 * session.on('*', (event) => (conversation = applyEvent(conversation, event)));
 * ```
 */
export function applyEvent(conversation: Conversation, event: SwitchboardEvent): Conversation {
  const run = event.run_id ?? '';
  if (ASSISTANT_EVENTS.has(event.type))
    conversation = link(conversation, run, (event.data as { message_id: string }).message_id);
  switch (event.type) {
    case 'user.message': {
      const { message_id: id, content } = event.data;
      const known = conversation.drafts.get(id);
      // A regenerate repeats the user message it answers: the same message, in its place.
      const parts: ChatPart[] = [
        ...(content ? [{ type: 'text' as const, text: content }] : []),
        ...(known?.message.parts.filter((p) => p.type === 'file') ?? []),
      ];
      const message: ChatMessage = {
        id,
        role: 'user',
        parts,
        text: content,
        runId: known?.message.runId ?? run,
        state: 'done',
        rating: null,
        errors: [],
      };
      return put(conversation, { message, segmentRun: run, segmentStart: 0 });
    }
    case 'agent.message.delta': {
      const draft = assistant(conversation, event.data.message_id, run);
      const parts = [...draft.message.parts];
      const last = parts.at(-1);
      if (last?.type === 'text' && parts.length > draft.segmentStart)
        parts[parts.length - 1] = { type: 'text', text: last.text + event.data.text };
      else parts.push({ type: 'text', text: event.data.text });
      return put(conversation, withParts(draft, parts));
    }
    case 'agent.tool_use': {
      const { message_id, id, name, args } = event.data;
      const draft = assistant(conversation, message_id, run);
      return put(
        conversation,
        withParts(draft, [...draft.message.parts, { type: 'tool', id, name, args, state: 'running' }]),
      );
    }
    case 'agent.tool_result': {
      const { message_id, id, ok, result, error } = event.data;
      const settled = (part: ChatPart): ChatPart =>
        part.type === 'tool'
          ? { ...part, state: ok ? 'succeeded' : 'failed', result, ...(ok ? {} : { error }) }
          : part;
      const found = conversation.drafts
        .get(message_id)
        ?.message.parts.some((p) => p.type === 'tool' && p.id === id);
      if (found)
        return updatePart(conversation, message_id, (p) => p.type === 'tool' && p.id === id, settled);
      // A result whose call this log does not hold (a tool the agent ran before streaming began).
      const draft = assistant(conversation, message_id, run);
      const part = settled({
        type: 'tool',
        id,
        name: event.data.name ?? id,
        args: undefined,
        state: 'running',
      });
      return put(conversation, withParts(draft, [...draft.message.parts, part]));
    }
    case 'agent.warning': {
      const { message_id, code, message, source } = event.data;
      const draft = assistant(conversation, message_id, run);
      const part: WarningPart = { type: 'warning', code, message, source };
      return put(conversation, withParts(draft, [...draft.message.parts, part]));
    }
    case 'tool_call': {
      const { message_id, call_id, name, arguments: args } = event.data;
      const draft = assistant(conversation, message_id, run);
      const part: HostActionPart = { type: 'host_action', id: call_id, name, args, state: 'pending' };
      return put(conversation, withParts(draft, [...draft.message.parts, part]));
    }
    case 'action.required': {
      const draft = assistant(conversation, event.data.message_id, run);
      const asked = event.data.actions
        .filter((action) => action.type !== 'host_tool')
        .map(
          (action): RequestPart => ({
            type: 'request',
            id: action.id,
            request: action,
            state: 'open',
            resolution: null,
          }),
        );
      return put(conversation, withParts(draft, [...draft.message.parts, ...asked]));
    }
    case 'action.resolved': {
      const { action_id, message_id, status, resolution } = event.data;
      return updatePart(
        conversation,
        message_id,
        (p) => (p.type === 'request' || p.type === 'host_action') && p.id === action_id,
        (part) => {
          if (part.type === 'request') return { ...part, state: status, resolution };
          if (part.type !== 'host_action') return part;
          const host = resolution as { outcome?: string; result?: unknown } | null;
          return {
            ...part,
            state: status !== 'resolved' ? status : host?.outcome === 'failed' ? 'failed' : 'succeeded',
            ...(host && 'result' in host && { result: host.result }),
          };
        },
      );
    }
    case 'final_response': {
      const { message_id, content, stop_reason, usage, files } = event.data;
      const draft = assistant(conversation, message_id, run);
      let parts = draft.message.parts;
      // The stored answer is what counts: it replaces what this run streamed when they differ.
      const streamed = joinText(parts.slice(draft.segmentStart));
      if (content !== null && content !== streamed) {
        const at = parts.findIndex((p, i) => i >= draft.segmentStart && p.type === 'text');
        const kept = parts.filter((p, i) => i < draft.segmentStart || p.type !== 'text');
        const text: ChatPart = { type: 'text', text: content };
        // `at` counts the parts before it, text or not; in `kept` the segment's text parts are gone.
        const before = parts
          .slice(0, at)
          .filter((p, i) => i < draft.segmentStart || p.type !== 'text').length;
        // Text that streamed nothing leads into the requests this run asked (its cards come after it).
        const request = kept.findIndex((p, i) => i >= draft.segmentStart && p.type === 'request');
        parts =
          content === ''
            ? kept
            : at >= 0
              ? [...kept.slice(0, before), text, ...kept.slice(before)]
              : request >= 0
                ? [...kept.slice(0, request), text, ...kept.slice(request)]
                : [...kept, text];
      }
      const produced = files.map(
        (file): FilePart => ({
          type: 'file',
          id: file.id,
          name: file.name,
          mediaType: file.media_type,
          size: file.size,
        }),
      );
      return put(
        conversation,
        withParts(draft, [...parts, ...produced], {
          state: 'done',
          stopReason: stop_reason ?? undefined,
          ...(usage && { usage }),
        }),
      );
    }
    case 'messages.replaced': {
      // The stored messages after the cut: what the log showed after the first of them goes too (a
      // failed turn's answer, which is not stored).
      const first = conversation.order.findIndex((id) => event.data.message_ids.includes(id));
      const gone = new Set([
        ...event.data.message_ids,
        ...(first < 0 ? [] : conversation.order.slice(first)),
      ]);
      const drafts = new Map(conversation.drafts);
      for (const id of gone) drafts.delete(id);
      return { ...conversation, order: conversation.order.filter((id) => !gone.has(id)), drafts };
    }
    case 'session.status_running': {
      // The answer to a host call goes on in the message that made the call: so does its error.
      const { kind, action_id } = event.data;
      if (kind !== 'resolve' || !action_id) return conversation;
      for (const draft of conversation.drafts.values())
        if (draft.message.parts.some((p) => p.type === 'host_action' && p.id === action_id))
          return link(conversation, run, draft.message.id);
      return conversation;
    }
    case 'session.error': {
      if (!run) return conversation;
      const error: TurnError = { code: event.data.code, message: event.data.message };
      const linked = conversation.runs.get(run);
      if (linked !== undefined) {
        const draft = conversation.drafts.get(linked);
        // A message a regenerate or an edit replaced keeps its errors out of the list with it.
        if (!draft) return conversation;
        const message = { ...draft.message, errors: [...draft.message.errors, error] };
        return put(conversation, { ...draft, message });
      }
      // A turn that failed before it wrote anything: a message of its own, under its run's id.
      const message: ChatMessage = {
        id: run,
        role: 'assistant',
        parts: [],
        text: '',
        runId: run,
        state: 'done',
        rating: null,
        errors: [error],
      };
      return link(put(conversation, { message, segmentRun: run, segmentStart: 0 }), run, run);
    }
    case 'session.status_idle':
    case 'session.status_requires_action': {
      // A turn that ended without its final_response (an error, a cancel) leaves nothing streaming.
      let next = conversation;
      for (const draft of conversation.drafts.values())
        if (draft.message.state === 'streaming')
          next = put(next, { ...draft, message: { ...draft.message, state: 'done' } });
      return next;
    }
    default:
      return conversation;
  }
}

/**
 * Adds the files a user message was sent with (the log's `user.message` does not repeat them).
 *
 * @example
 * ```ts
 * conversation = withFiles(conversation, accepted.message_id, [record]);
 * ```
 */
export function withFiles(conversation: Conversation, messageId: string, files: FilePart[]): Conversation {
  const draft = conversation.drafts.get(messageId);
  if (!draft || files.length === 0) return conversation;
  const parts = [...draft.message.parts.filter((p) => p.type !== 'file'), ...files];
  return put(conversation, withParts(draft, parts));
}

/**
 * The messages in conversation order, with the ratings given so far.
 *
 * @example
 * ```ts
 * const messages = messagesOf(conversation, ratings);
 * ```
 */
export function messagesOf(
  conversation: Conversation,
  ratings: ReadonlyMap<string, 'up' | 'down' | null>,
): ChatMessage[] {
  return conversation.order.map((id) => {
    const message = (conversation.drafts.get(id) as Draft).message;
    const rating = ratings.get(id);
    return rating === undefined || rating === message.rating ? message : { ...message, rating };
  });
}
