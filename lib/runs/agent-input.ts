import { remembersTools } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import type {
  Attachment,
  HistoryMessage,
  HostAgentInput,
  HostAgentIO,
  HostAgentRegistration,
  RequestContext,
} from '../contract/index.ts';
import { conversationFiles, fileIdsOf, sessionFiles } from '../files/index.ts';
import {
  getBlob,
  listRememberedTools,
  type MessageRecord,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import { loadAttachment, partsReader } from './attachment-parts.ts';
import { decisionTools, toolsForTurn } from './tools.ts';

/** A stored message as the agent reads it: the prompt as first rendered, attachments as first seen. */
export async function historyMessage(rt: Runtime, m: MessageRecord): Promise<HistoryMessage> {
  return {
    id: m.messageId,
    role: m.role,
    content: m.content,
    prompt: m.contextBlock ? `${m.contextBlock}\n\n${m.content}` : m.content,
    attachments: await Promise.all((m.attachments ?? []).map((a) => loadAttachment(rt, a))),
    createdAt: m.createdAt,
  };
}

/** The names of the tools remembered for a session, as an agent reads them: none for a host agent. */
export async function rememberedToolsOf(
  rt: Runtime,
  agent: HostAgentRegistration,
  session: SessionRecord,
): Promise<string[]> {
  if (!remembersTools(agent)) return [];
  return (await listRememberedTools(rt, session)).map((t) => t.name);
}

/**
 * What `invoke` receives for a turn: the message as typed and as the model should read it (its
 * frozen `<host_context>` block first), the structured context, this turn's tools and attachments,
 * the history up to this message, and the io parts that read files and the screen.
 */
export async function invocationOf(
  rt: Runtime,
  agent: HostAgentRegistration,
  run: RunRecord,
  history: MessageRecord[],
  context: RequestContext,
  warn: (message: string, detail: Record<string, unknown>) => void,
): Promise<{ input: HostAgentInput; io: Pick<HostAgentIO, 'files' | 'lookAtScreen' | 'parts'> }> {
  const turnHistory = await Promise.all(history.map((m) => historyMessage(rt, m)));
  const current = turnHistory.at(-1);
  const stored = history.at(-1);
  // The conversation's files so far; the ones this message carries are `input.files`.
  const known = await conversationFiles(rt, history);
  const files = sessionFiles(rt, known);
  const own = new Set(stored ? fileIdsOf(stored) : []);
  const screenshots = run.screenshots ?? [];
  return {
    input: {
      conversationId: run.sessionId,
      runId: run.runId,
      message: current?.content ?? '',
      prompt: current?.prompt ?? '',
      hostContext: stored?.hostContext ?? null,
      attachments: current?.attachments ?? [],
      tools:
        run.outputMode === 'host_tools'
          ? decisionTools(stored?.hostContext)
          : toolsForTurn(rt.settings.tools, agent.definition.tools ?? [], stored?.hostContext, warn),
      screenAvailable: screenshots.length > 0,
      history: turnHistory,
      files: (await files.list()).filter((f) => own.has(f.id)),
      metadata: stored?.metadata ?? {},
      context,
      ...(run.rewrite && { mode: run.rewrite.mode, fromMessageId: run.rewrite.fromMessageId }),
      ...(run.outputMode && { outputMode: run.outputMode }),
    },
    io: {
      files,
      lookAtScreen: () => Promise.all(screenshots.map((key) => getBlob<Attachment>(rt, key))),
      parts: partsReader(rt, run.sessionId, stored?.attachments ?? [], history),
    },
  };
}
