import { describe, expect, it } from 'vitest';
import { TurnState } from '../../lib/runs/index.ts';

function streamed(...texts: string[]): TurnState {
  const state = new TurnState();
  for (const text of texts) state.apply({ type: 'text', text });
  return state;
}

describe('what a turn stores', () => {
  it('stores the streamed text when the result has no content', () => {
    expect(streamed('Hel', 'lo').settle({}).content).toBe('Hello');
    expect(streamed('Hel', 'lo').settle({ content: '' }).content).toBe('Hello');
    expect(streamed('Hel', 'lo').settle({ content: null }).content).toBe('Hello');
  });

  it('stores a non-empty content whatever was streamed', () => {
    expect(streamed('draft').settle({ content: 'Final answer' }).content).toBe('Final answer');
  });

  it('adds up emitted usage, and lets the result replace it', () => {
    const state = new TurnState();
    state.apply({ type: 'usage', usage: { inputTokens: 2, outputTokens: 3, costUsd: 0.5 } });
    state.apply({ type: 'usage', usage: { inputTokens: 4, model: 'm' } });
    expect(state.settle({}).usage).toMatchObject({
      inputTokens: 6,
      outputTokens: 3,
      costUsd: 0.5,
      model: 'm',
    });
    expect(state.settle({ usage: { totalTokens: 1 } }).usage).toEqual({ totalTokens: 1 });
  });

  it('pairs tool results with their tool_use by id', () => {
    const state = new TurnState();
    state.apply({ type: 'tool_use', id: 't', name: 'search', args: { q: 1 } });
    state.apply({ type: 'tool_result', id: 't', error: 'down' });
    expect(state.toolCalls).toEqual([
      { id: 't', name: 'search', args: { q: 1 }, result: undefined, error: 'down', ok: false },
    ]);
  });

  it('pauses on emitted actions unless the result replaces them, and an empty list says nothing is open', () => {
    const state = new TurnState();
    state.apply({ type: 'action_required', actions: [{ id: 'a', type: 'tool_approval' }] });
    expect(state.settle({}).outcome).toMatchObject({
      status: 'requires_action',
      stopReason: 'requires_action',
    });
    expect(state.settle({ pendingActions: [] }).outcome).toMatchObject({
      status: 'completed',
      stopReason: 'end_turn',
    });
  });

  it('lets the result stop reason win over an emitted stop', () => {
    const state = new TurnState();
    state.apply({ type: 'stop', stopReason: 'max_turns' });
    expect(state.settle({}).outcome.stopReason).toBe('max_turns');
    expect(state.settle({ stopReason: 'limit' }).outcome.stopReason).toBe('limit');
    expect(state.settle({ status: 'cancelled' }).outcome).toMatchObject({ status: 'cancelled' });
  });
});
