import type { HostAgentDefinition } from '../lib/index.ts';

/** Resolves after `ms`, or at once when the turn is stopped; leaves no listener on the signal. */
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const abort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });

/** A backend tool of the demo: a few facts about the message. */
function textStats(text: string) {
  const words = text.trim().split(/\s+/).filter(Boolean);
  return {
    characters: text.length,
    words: words.length,
    longest: words.reduce((a, b) => (b.length > a.length ? b : a), ''),
  };
}

/**
 * The demo agent: it calls one backend tool (tool_use, tool_result) and streams its reply in
 * several chunks, as an agent in a team's own backend would.
 */
export function demoAgent(options: { chunkDelayMs?: number } = {}): HostAgentDefinition {
  const delay = options.chunkDelayMs ?? Number(process.env.SWITCHBOARD_DEMO_DELAY_MS ?? 80);
  return {
    info: { id: 'demo', name: 'Demo assistant', capabilities: { streaming: true } },
    async invoke({ message, history }, { emit, signal }) {
      emit({ type: 'tool_use', id: 'stats_1', name: 'text_stats', args: { text: message } });
      const stats = textStats(message);
      await pause(delay, signal);
      emit({ type: 'tool_result', id: 'stats_1', name: 'text_stats', result: stats });
      const turn = history.filter((m) => m.role === 'user').length;
      const reply = [
        `You wrote ${stats.words} word${stats.words === 1 ? '' : 's'}`,
        ` (${stats.characters} characters)`,
        stats.longest ? `; the longest is "${stats.longest}". ` : '. ',
        `This is message ${turn} of our conversation, `,
        'streamed to you in pieces ',
        'by a host-backed agent.',
      ];
      for (const chunk of reply) {
        if (signal.aborted) break;
        emit({ type: 'text', text: chunk });
        await pause(delay, signal);
      }
      emit({ type: 'usage', usage: { inputTokens: stats.words, outputTokens: reply.length, model: 'demo' } });
      return signal.aborted ? { status: 'cancelled', stopReason: 'cancelled' } : {};
    },
  };
}
