import {
  type ChatRequest,
  parseChatRequest,
  parseResolveRequest,
  type ResolveRequest,
} from '../contract/index.ts';
import { type Issue, ValidationError } from '../errors/index.ts';
import type { AguiResume, RunAgentInput } from './schema.ts';
import type { ClientKnows } from './types.ts';

/** The view a context or state arrives as, since AG-UI names none. */
export const AGUI_VIEW = 'ag-ui';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `tools`, `context` and `state` as host_context: each tool a request-declared action, each context
 * entry a key of `view.data` (its description the key), an object state `view.state` (any other
 * state `view.data.state`). Undefined when the input carries none: the session keeps its last context.
 */
export function hostContextOf(input: RunAgentInput): Record<string, unknown> | undefined {
  const actions = (input.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }));
  const data: Record<string, unknown> = Object.fromEntries(
    (input.context ?? []).map((entry) => [entry.description, entry.value]),
  );
  const state = isObject(input.state) && Object.keys(input.state).length > 0 ? input.state : undefined;
  if (!isObject(input.state) && input.state !== undefined && input.state !== null) data.state = input.state;
  const view =
    Object.keys(data).length > 0 || state ? { name: AGUI_VIEW, data, ...(state && { state }) } : undefined;
  if (actions.length === 0 && !view) return undefined;
  return { version: 1, ...(view && { view }), ...(actions.length > 0 && { actions }) };
}

/** A Switchboard field path as the AG-UI input spells it, so that a 422 names what the client sent. */
function spell(path: (string | number)[], last: number): (string | number)[] {
  const [head, ...rest] = path;
  if (head === 'id') return ['runId'];
  if (head === 'session_id') return ['threadId'];
  if (head === 'tool_call_id') return ['messages', last, 'toolCallId'];
  if (head === 'content' || head === 'tool_result') return ['messages', last, 'content'];
  if (head !== 'host_context') return path;
  const [field, ...tail] = rest;
  if (field === 'actions') return ['tools', ...tail];
  if (field === 'view' && tail[0] === 'state') return ['state', ...tail.slice(1)];
  if (field === 'view') return ['context'];
  return ['tools'];
}

/** Runs a Switchboard parse, its issues renamed to the AG-UI input's fields. */
function respelled<T>(parse: () => T, last: number): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const issues: Issue[] = error.issues.map((issue) => ({ ...issue, path: spell(issue.path, last) }));
    const first = issues[0];
    const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
    throw new ValidationError(
      `Invalid RunAgentInput${where}: ${first?.message ?? 'not accepted'}`,
      issues,
      error.code,
    );
  }
}

/**
 * The message the input's last message is: the user's text (its text parts joined), or a frontend
 * tool's result, which is Switchboard's continuation of the pending host call of that id.
 */
export function chatRequestOf(input: RunAgentInput, agentId: string | undefined): ChatRequest {
  const last = input.messages.length - 1;
  const message = input.messages[last];
  const common = {
    id: input.runId,
    session_id: input.threadId,
    ...(agentId && { agent_id: agentId }),
    ...(hostContextOf(input) && { host_context: hostContextOf(input) }),
  };
  if (message?.role === 'user') {
    const content =
      typeof message.content === 'string'
        ? message.content
        : message.content
            .flatMap((part) => (part.type === 'text' && part.text ? [part.text] : []))
            .join('\n');
    return respelled(() => parseChatRequest({ ...common, content }), last);
  }
  if (message?.role === 'tool') {
    let result: unknown = message.content;
    try {
      result = JSON.parse(message.content);
    } catch {}
    return respelled(
      () =>
        parseChatRequest({
          ...common,
          content: '',
          tool_call_id: message.toolCallId,
          tool_result: result,
          ...(message.error !== undefined && { tool_outcome: 'failed' }),
        }),
      last,
    );
  }
  throw new ValidationError(
    "Invalid RunAgentInput: the last message must be the user's or a tool result; answer interrupts with resume.",
    [{ path: last < 0 ? ['messages'] : ['messages', last, 'role'], message: 'a user or tool message' }],
  );
}

/**
 * One resume entry as the answer to the Switchboard request it names. `payload` is the answer in the
 * shape of `POST /api/sessions/{id}/actions/{actionId}` (`decision`, `approved_args`, `answers`,
 * `output`, `error`, `comment`); `cancelled` refuses an approval and fails a client tool. A question
 * cannot be left unanswered: cancel the session instead.
 */
export function answerOf(entry: AguiResume, index: number, kind: string, requestId: string): ResolveRequest {
  const path = ['resume', index];
  let body: unknown = entry.payload;
  if (entry.status === 'cancelled') {
    if (kind === 'user_question')
      throw new ValidationError('Invalid RunAgentInput: a question cannot be cancelled; answer it.', [
        { path: [...path, 'status'], message: 'a question needs an answer' },
      ]);
    body = kind === 'client_tool' ? { error: 'cancelled by the client' } : { decision: 'deny' };
  }
  if (!isObject(body))
    throw new ValidationError('Invalid RunAgentInput: a resolved interrupt needs a payload object.', [
      { path: [...path, 'payload'], message: 'an object: the answer' },
    ]);
  try {
    return parseResolveRequest({ ...body, id: requestId });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const issues = error.issues.map((issue) => ({ ...issue, path: [...path, 'payload', ...issue.path] }));
    throw new ValidationError(
      `Invalid RunAgentInput at ${issues[0]?.path.join('.') ?? 'resume'}: ${issues[0]?.message}`,
      issues,
      error.code,
    );
  }
}

/** What the client holds already, from the messages it posted. */
export function clientKnows(input: RunAgentInput): ClientKnows {
  const knows: ClientKnows = { text: new Map(), toolCalls: new Set(), toolResults: new Set() };
  for (const message of input.messages) {
    if (message.role === 'tool') knows.toolResults.add(message.toolCallId);
    if (message.role !== 'assistant') continue;
    if (typeof message.content === 'string' && message.content.length > 0)
      knows.text.set(message.id, message.content.length);
    if (Array.isArray(message.toolCalls))
      for (const call of message.toolCalls)
        if (isObject(call) && typeof call.id === 'string') knows.toolCalls.add(call.id);
  }
  return knows;
}
