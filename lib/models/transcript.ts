import type { ContentPart, HistoryMessage, HostTool } from '../contract/index.ts';

/** A call the model made: its id, the tool, and the arguments as the model wrote them (JSON text). */
export interface ModelCall {
  id: string;
  name: string;
  args: string;
}

/**
 * One message of what the model reads, in no endpoint's format: each wire adapter writes it in its
 * own (`chat-completions.ts`, `responses.ts`). The system prompt is not among them.
 */
export type ModelMessage =
  /**
   * `notKept`: images shown once (the screenshots `look_at_screen` showed, the images tools
   * returned), which nothing kept of the turn may hold: what is kept in their place.
   */
  | { role: 'user'; content: ContentPart[]; notKept?: string }
  | { role: 'assistant'; text: string; calls: ModelCall[] }
  | { role: 'tool'; callId: string; output: string };

/**
 * What a paused turn keeps on the request it asked (the `transcript` of a `tool_approval`,
 * `client_tool` or `host_tool` request), so that its answer continues the same model conversation:
 * the user message it answers, what the model said and called since, the call it waits on, and the
 * host tools it was offered.
 */
export interface Transcript {
  userMessageId: string;
  turn: ModelMessage[];
  callId: string;
  hostTools: HostTool[];
  /**
   * Which response asked it (`<runId>.<place in the turn>`): every request of one response carries
   * the same, and the model gets their results together once the last is answered.
   */
  pause?: string;
  /** The results of that response's calls known when it paused (backend tools, refused calls), by call id. */
  held?: [string, string][];
  /** An approval of an MCP server's tool: which server and which of its tools, so that only that one runs. */
  mcp?: { server: string; tool: string };
}

/** What a turn keeps to resume: its messages without the images shown once (never stored). */
export function kept(transcript: Transcript): Transcript {
  return {
    ...transcript,
    turn: transcript.turn.map((m) =>
      m.role === 'user' && m.notKept !== undefined
        ? { role: 'user', content: [{ type: 'text', text: m.notKept }] }
        : m,
    ),
  };
}

/**
 * The stored conversation as the model reads it, oldest first: each user message as its frozen
 * prompt (its `<host_context>` block, then the text) and its attachments as native parts, each
 * answer as its text. Never re-rendered, so a replayed prefix is byte for byte what the provider
 * cached. Answers without text (a turn that only paused) are left out.
 */
export async function conversationMessages(
  history: HistoryMessage[],
  parts: (messageId?: string) => Promise<ContentPart[]>,
): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [];
  for (const m of history) {
    if (m.role === 'user') {
      messages.push({ role: 'user', content: [{ type: 'text', text: m.prompt }, ...(await parts(m.id))] });
    } else if (m.content !== '') {
      messages.push({ role: 'assistant', text: m.content, calls: [] });
    }
  }
  return messages;
}

/** The history up to and including the message `id` (the whole history when it is not there). */
export function historyThrough(history: HistoryMessage[], id: string): HistoryMessage[] {
  const at = history.findIndex((m) => m.id === id);
  return at < 0 ? history : history.slice(0, at + 1);
}

/** A tool's output as the model reads it: text as it is, anything else as JSON. */
export function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value ?? null) ?? 'null';
}
