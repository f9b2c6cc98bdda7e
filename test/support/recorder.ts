import { hostSessionId } from '../../lib/auth/index.ts';
import type {
  ContentPart,
  HostAgentDefinition,
  HostAgentInput,
  ResolveActionInput,
} from '../../lib/index.ts';

/** What the recording agent saw in one turn. */
export interface Recorded {
  input: HostAgentInput;
  screen: Awaited<ReturnType<Parameters<HostAgentDefinition['invoke']>[1]['lookAtScreen']>>;
  fileTexts: Record<string, string | null>;
  /** `io.parts()`: this turn's reference attachments as content parts. */
  parts: ContentPart[];
  /** `io.parts(id)` of every message of the history, by its id. */
  historyParts: Record<string, ContentPart[]>;
}

/**
 * An agent that answers "ok" and records everything it was handed, per session, so a test can
 * wait for a turn's input instead of polling for it.
 */
export function recordingAgent(id = 'recorder', tools: HostAgentDefinition['tools'] = []) {
  const seen = new Map<string, Recorded[]>();
  const resolved = new Map<string, { input: ResolveActionInput; parts: ContentPart[] }[]>();
  const waiters: { sessionId: string; count: number; resolve: (r: Recorded[]) => void }[] = [];
  const definition: HostAgentDefinition = {
    info: { id },
    tools,
    async invoke(input, io) {
      const files = await io.files.list();
      const fileTexts = Object.fromEntries(
        await Promise.all(files.map(async (f) => [f.id, await io.files.text(f.id)] as const)),
      );
      const list = [
        ...(seen.get(hostSessionId(input.conversationId)) ?? []),
        {
          input,
          screen: await io.lookAtScreen(),
          fileTexts,
          parts: await io.parts(),
          historyParts: Object.fromEntries(
            await Promise.all(input.history.map(async (m) => [m.id, await io.parts(m.id)] as const)),
          ),
        },
      ];
      seen.set(hostSessionId(input.conversationId), list);
      for (const w of waiters.filter(
        (w) => w.sessionId === hostSessionId(input.conversationId) && list.length >= w.count,
      )) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(list);
      }
      // A host call the continuation tests answer.
      if (input.message === 'call open_page')
        io.emit({ type: 'tool_use', id: 'call_open', name: 'open_page', args: { name: 'agents' } });
      return { content: 'ok' };
    },
    async resolveAction(input, io) {
      const sessionId = hostSessionId(input.conversationId);
      resolved.set(sessionId, [...(resolved.get(sessionId) ?? []), { input, parts: await io.parts() }]);
      return { content: 'done' };
    },
  };
  return {
    definition,
    /** What `resolveAction` was handed in a session, with `io.parts()`. */
    resolutions: (sessionId: string) => resolved.get(sessionId) ?? [],
    /**
     * Resolves with the session's recorded turns once there are `count` of them; rejects, naming
     * the session and the count, if they have not all come within `timeoutMs`.
     */
    turns(sessionId: string, count = 1, timeoutMs = 15_000): Promise<Recorded[]> {
      const list = seen.get(sessionId) ?? [];
      if (list.length >= count) return Promise.resolve(list);
      return new Promise((resolve, reject) => {
        const waiter = {
          sessionId,
          count,
          resolve: (turns: Recorded[]) => {
            clearTimeout(timer);
            resolve(turns);
          },
        };
        const timer = setTimeout(() => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          const got = seen.get(sessionId)?.length ?? 0;
          reject(
            new Error(
              `timed out after ${timeoutMs} ms waiting for ${count} turn(s) of session ${sessionId} at agent ${id}; got ${got}`,
            ),
          );
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
  };
}
