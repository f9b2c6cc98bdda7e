import type {
  HistoryMessage,
  HostAgentInput,
  HostAgentIO,
  HostAgentRegistration,
  RequestContext,
} from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import type { Attachment } from '../contract/index.ts';
import { type FileRecord, getBlob, getFile, type MessageRecord, type RunRecord } from '../store/index.ts';
import { loadAttachment, sessionFiles } from './attachments.ts';
import { toolsForTurn } from './tools.ts';

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

/** The files the session's messages reference: the only ones `io.files` serves. */
export async function filesOf(rt: Runtime, history: MessageRecord[]): Promise<FileRecord[]> {
  const ids = [
    ...new Set(history.flatMap((m) => (m.attachments ?? []).flatMap((a) => (a.file_id ? [a.file_id] : [])))),
  ];
  const files = await Promise.all(ids.map((id) => getFile(rt, id)));
  return files.filter((f): f is FileRecord => f !== undefined);
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
): Promise<{ input: HostAgentInput; io: Pick<HostAgentIO, 'files' | 'lookAtScreen'> }> {
  const turnHistory = await Promise.all(history.map((m) => historyMessage(rt, m)));
  const current = turnHistory.at(-1);
  const stored = history.at(-1);
  const files = sessionFiles(rt, await filesOf(rt, history));
  const screenshots = run.screenshots ?? [];
  return {
    input: {
      conversationId: run.sessionId,
      runId: run.runId,
      message: current?.content ?? '',
      prompt: current?.prompt ?? '',
      hostContext: stored?.hostContext ?? null,
      attachments: current?.attachments ?? [],
      tools: toolsForTurn(rt.settings.tools, agent.definition.tools ?? [], stored?.hostContext, warn),
      screenAvailable: screenshots.length > 0,
      history: turnHistory,
      files: await files.list(),
      metadata: stored?.metadata ?? {},
      context,
      ...(run.rewrite && { mode: run.rewrite.mode, fromMessageId: run.rewrite.fromMessageId }),
    },
    io: { files, lookAtScreen: () => Promise.all(screenshots.map((key) => getBlob<Attachment>(rt, key))) },
  };
}
