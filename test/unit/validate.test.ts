import { describe, expect, it, vi } from 'vitest';
import { EventGate, validateResult } from '../../lib/agents/index.ts';
import { InvalidHostResultError } from '../../lib/errors/index.ts';

describe('events an agent emits', () => {
  it.each([
    { type: 'text', text: 'hi' },
    { type: 'tool_use', id: 't1', name: 'search', args: { q: 'x' } },
    { type: 'tool_result', id: 't1', result: [1, 2] },
    { type: 'tool_result', id: 't1', name: 'search', error: 'boom' },
    {
      type: 'action_required',
      actions: [{ id: 'a1', type: 'tool_approval', toolName: 'wire', args: { amount: 5 } }],
    },
    { type: 'usage', usage: { inputTokens: 3, outputTokens: 4, costUsd: 0.01, model: 'm' } },
    { type: 'stop', stopReason: 'max_turns', detail: 'ran out' },
  ])('accepts a well-formed $type event as it was emitted', (event) => {
    expect(new EventGate(vi.fn()).accept(event)).toEqual(event);
  });

  it.each([
    ['an unknown type', { type: 'shout', text: 'x' }],
    ['a text without text', { type: 'text' }],
    ['a tool_use without an id', { type: 'tool_use', name: 'search' }],
    ['a tool_result without an id', { type: 'tool_result', result: 1 }],
    ['an action_required without actions', { type: 'action_required', actions: [] }],
    ['an action without an id', { type: 'action_required', actions: [{ type: 'tool_approval' }] }],
    ['a usage with negative tokens', { type: 'usage', usage: { inputTokens: -1 } }],
    ['a stop with an unknown reason', { type: 'stop', stopReason: 'tired' }],
    ['not an object', 'text'],
    ['null', null],
  ])('ignores %s', (_what, event) => {
    expect(new EventGate(vi.fn()).accept(event)).toBeUndefined();
  });

  it('warns once per turn, however many malformed events arrive', () => {
    const warn = vi.fn();
    const gate = new EventGate(warn);
    gate.accept({ type: 'nope' });
    gate.accept({ type: 'tool_use' });
    gate.accept({ type: 'text', text: 'fine' });
    gate.accept(42);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toHaveProperty('issues');
  });

  it('drops every event once the turn has ended', () => {
    const gate = new EventGate(vi.fn());
    gate.close();
    expect(gate.accept({ type: 'text', text: 'late' })).toBeUndefined();
  });
});

describe('the result an agent returns', () => {
  const question = {
    id: 'r1',
    type: 'user_question',
    questions: [{ question: 'Which?', options: [{ label: 'a' }] }],
  };
  const dated = { id: 'r1', type: 'tool_approval', expiresAt: '2026-10-12T10:00:00.000Z' };
  it.each([
    ['nothing (everything was streamed)', undefined, {}],
    ['an empty object', {}, {}],
    [
      'a content with usage',
      { content: 'hi', usage: { totalTokens: 3 } },
      { content: 'hi', usage: { totalTokens: 3 } },
    ],
    ['a pause', { pendingActions: [question] }, { pendingActions: [question] }],
    ['an expiresAt that is a date', { pendingActions: [dated] }, { pendingActions: [dated] }],
    [
      'a status and a stop reason',
      { status: 'incomplete', stopReason: 'limit' },
      { status: 'incomplete', stopReason: 'limit' },
    ],
    ['a null content', { content: null }, { content: null }],
    [
      'a loop stopped at max_turns with what it needs to resume',
      { status: 'incomplete', stopReason: 'max_turns', resume: { turn: [] } },
      { status: 'incomplete', stopReason: 'max_turns', resume: { turn: [] } },
    ],
    [
      'a loop stopped by the budget with what it needs to resume',
      { status: 'incomplete', stopReason: 'budget_reached', resume: { turn: [] } },
      { status: 'incomplete', stopReason: 'budget_reached', resume: { turn: [] } },
    ],
  ])('accepts %s', (_what, value, expected) => {
    expect(validateResult(value)).toEqual(expected);
  });

  it.each([
    ['not an object (a string)', 'hello'],
    ['not an object (null)', null],
    ['not an object (an array)', [{ content: 'x' }]],
    ['an unknown status', { status: 'sideways' }],
    ['a pending action without an id', { pendingActions: [{ type: 'tool_approval', toolName: 'x' }] }],
    [
      'two actions with one id',
      {
        pendingActions: [
          { id: 'a', type: 'tool_approval' },
          { id: 'a', type: 'user_question' },
        ],
      },
    ],
    [
      'an expiresAt that is no date',
      { pendingActions: [{ id: 'a', type: 'tool_approval', expiresAt: 'tomorrow-ish' }] },
    ],
    ['an unknown stop reason', { stopReason: 'bored' }],
    ['a content that is not text', { content: 42 }],
    ['a resume with a completed turn', { resume: { turn: [] } }],
    ['a resume with another stop', { status: 'incomplete', stopReason: 'limit', resume: { turn: [] } }],
    ['a resume that is not an object', { status: 'incomplete', stopReason: 'max_turns', resume: 'later' }],
  ])('rejects %s as invalid_host_result (500)', (_what, value) => {
    let thrown: unknown;
    try {
      validateResult(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidHostResultError);
    expect(thrown).toMatchObject({ code: 'invalid_host_result', status: 500 });
  });
});
