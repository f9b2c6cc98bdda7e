import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/** What one call of the model reports it used: 10 input tokens (2 of them cached), 5 output. */
export const STEP_USAGE = {
  inputTokens: { total: 10, noCache: 8, cacheRead: 2, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const finish = (unified: 'stop' | 'tool-calls' | 'length'): LanguageModelV4StreamPart => ({
  type: 'finish',
  finishReason: { unified, raw: unified },
  usage: STEP_USAGE,
});

/** One model call answering with text, in the pieces given. */
export const say = (...pieces: string[]): LanguageModelV4StreamPart[] => [
  { type: 'text-start', id: 't' },
  ...pieces.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
  { type: 'text-end', id: 't' },
  finish('stop'),
];

/** One model call asking for tool calls (after some text, when given). */
export const call = (
  calls: { id: string; name: string; input: unknown }[],
  text?: string,
): LanguageModelV4StreamPart[] => [
  ...(text ? say(text).slice(0, -1) : []),
  ...calls.map((c) => ({
    type: 'tool-call' as const,
    toolCallId: c.id,
    toolName: c.name,
    input: JSON.stringify(c.input),
  })),
  finish('tool-calls'),
];

/** A model call that streams a first piece and then waits until the call is aborted (it never ends otherwise). */
export const HANG = 'hang' as const;

/** A model call that fails as a provider's would: its stream errors. */
export const fail = (message: string) => ({ fail: message });

type Step = LanguageModelV4StreamPart[] | typeof HANG | { fail: string };

/**
 * The AI SDK's own mock model, answering each call with the next step of a script (by the text of
 * the conversation's first user message, so that one model serves every session of a test file).
 * Every prompt it is given is kept, with whether the call's abort signal fired.
 */
export function scriptedModel(scripts: Record<string, Step[]>) {
  const calls = new Map<string, number>();
  const prompts: { key: string; prompt: unknown[]; aborted: () => boolean }[] = [];
  const model = new MockLanguageModelV4({
    modelId: 'mock-model',
    doStream: async (options) => {
      const first = options.prompt.find((m) => m.role === 'user');
      const text =
        first && Array.isArray(first.content) ? first.content.find((p) => p.type === 'text') : undefined;
      const key = Object.keys(scripts).find((k) => text?.type === 'text' && text.text.includes(k)) ?? '';
      const n = calls.get(key) ?? 0;
      calls.set(key, n + 1);
      const signal = options.abortSignal;
      prompts.push({ key, prompt: options.prompt, aborted: () => signal?.aborted ?? false });
      const step = scripts[key]?.[n] ?? say(`(no step ${n} for "${key}")`);
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          if (step === HANG) {
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'Once upon a time' });
            signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
            return;
          }
          if ('fail' in step) {
            controller.enqueue({ type: 'error', error: new Error(step.fail) });
            controller.close();
            return;
          }
          for (const part of step) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  });
  return { model, prompts };
}
