/**
 * Which rule answers a request, and the answer it makes: the first rule that matches the prompt's last
 * user message or tool result and fits the request's `tool_choice`; a rule's mistake (a call of a tool
 * the request does not offer) is a script error, answered with a 400 that says it.
 */
import { EndpointError, scriptError } from './errors.ts';
import {
  argumentsText,
  type CheckedScript,
  deltasOf,
  describeRule,
  ruleMatches,
  type ScriptErrorOf,
  type ScriptReplyOf,
  type ScriptRuleOf,
} from './script.ts';
import type { PlannedReply, PromptTurn, ToolChoice } from './types.ts';

/** What the server keeps between requests: how often each rule answered, the prompts seen. */
export interface PlanState {
  script: CheckedScript;
  uses: number[];
  prompts: string[];
}

/** The prompts remembered for the cached-token count (the oldest forgotten first). */
const REMEMBERED_PROMPTS = 200;

/** Tokens of a text, estimated: about four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Whether a reply may answer under this `tool_choice`. */
function fits(reply: ScriptReplyOf, choice: ToolChoice): boolean {
  const calls = reply.toolCalls ?? [];
  if (choice.mode === 'none') return calls.length === 0;
  if (choice.mode === 'required' && calls.length === 0) return false;
  return (
    choice.names === undefined || calls.every((call) => call.unoffered || choice.names?.includes(call.name))
  );
}

function describeChoice(choice: ToolChoice): string {
  return choice.names ? `${choice.mode}, of ${choice.names.join(', ')}` : choice.mode;
}

/** The error a rule scripts, as the endpoint sends it. */
function scriptedError(error: ScriptErrorOf): EndpointError {
  const type =
    error.type ??
    (error.status === 429
      ? 'rate_limit_exceeded'
      : error.status >= 500
        ? 'server_error'
        : 'invalid_request_error');
  const headers: Record<string, string> =
    error.retryAfter === undefined ? {} : { 'retry-after': String(error.retryAfter) };
  return new EndpointError(error.status, error.message, type, error.code ?? null, null, headers);
}

/** The rule that answers, or the default reply (its tool calls dropped when `tool_choice` is `none`). */
function choose(turn: PromptTurn, state: PlanState): { index: number | 'default'; rule?: ScriptRuleOf } {
  for (const [index, rule] of state.script.rules.entries()) {
    if (!ruleMatches(rule, turn.input)) continue;
    if (rule.times !== undefined && (state.uses[index] ?? 0) >= rule.times) continue;
    if (rule.reply && !fits(rule.reply, turn.choice)) continue;
    state.uses[index] = (state.uses[index] ?? 0) + 1;
    return { index, rule };
  }
  return { index: 'default' };
}

function defaultReply(turn: PromptTurn, state: PlanState): ScriptReplyOf {
  const reply = state.script.default ?? {
    text: `The sandbox's scripted model has no rule for: ${JSON.stringify((turn.input?.text ?? '').slice(0, 200))}`,
  };
  if (turn.choice.mode !== 'none') return reply;
  const { toolCalls: _dropped, ...text } = reply;
  return text;
}

/** What answers a request: the rule, and its reply or the error it scripts. */
export type Planned = { rule: number | 'default' } & ({ reply: PlannedReply } | { error: EndpointError });

/** The answer to `turn`, and which rule made it; a script mistake throws an {@link EndpointError} that says it. */
export function planReply(turn: PromptTurn, state: PlanState): Planned {
  const chosen = choose(turn, state);
  if (chosen.rule?.error) return { rule: chosen.index, error: scriptedError(chosen.rule.error) };
  const reply = chosen.rule?.reply ?? defaultReply(turn, state);
  const who = describeRule(chosen.index, chosen.rule);
  const calls = reply.toolCalls ?? [];
  if (!fits(reply, turn.choice))
    throw scriptError(
      `no rule fits this request's tool_choice (${describeChoice(turn.choice)}): ${who} answers ${calls.length === 0 ? 'without a tool call' : `with calls of ${calls.map((c) => c.name).join(', ')}`}. Add a rule for it.`,
    );
  for (const call of calls) {
    if (call.unoffered || turn.tools.includes(call.name)) continue;
    throw scriptError(
      `${who} calls the tool ${JSON.stringify(call.name)}, which this request does not offer (its tools: ${turn.tools.join(', ') || 'none'}). Fix the script, or mark the call \`unoffered: true\` to test a model that calls an unknown tool.`,
    );
  }
  if (!turn.parallel && calls.length > 1)
    throw scriptError(
      `${who} makes ${calls.length} tool calls, and this request sets parallel_tool_calls to false.`,
    );
  const planned = calls.map((call, i) => ({
    id: call.id ?? `call_${turn.priorCalls + i + 1}`,
    name: call.name,
    arguments: argumentsText(call.arguments),
  }));
  const deltas = deltasOf(reply.text);
  const output = deltas.join('') + planned.map((c) => c.name + c.arguments).join('');
  const promptTokens = reply.usage?.promptTokens ?? estimateTokens(turn.prompt);
  const cached =
    reply.usage?.cachedTokens ?? Math.min(promptTokens, sharedPrefixTokens(turn.prompt, state.prompts));
  state.prompts.push(turn.prompt);
  if (state.prompts.length > REMEMBERED_PROMPTS) state.prompts.shift();
  return {
    rule: chosen.index,
    reply: {
      deltas,
      calls: planned,
      finishReason: reply.finishReason ?? (planned.length > 0 ? 'tool_calls' : 'stop'),
      usage: {
        promptTokens,
        completionTokens: reply.usage?.completionTokens ?? Math.max(1, estimateTokens(output)),
        cachedTokens: cached,
      },
      pause: reply.pauseUntilAborted === true,
    },
  };
}

/** The longest prefix `prompt` shares with an earlier prompt, in tokens: what a prompt cache would hold. */
function sharedPrefixTokens(prompt: string, earlier: string[]): number {
  let longest = 0;
  for (const other of earlier) {
    const end = Math.min(prompt.length, other.length);
    let i = 0;
    while (i < end && prompt.charCodeAt(i) === other.charCodeAt(i)) i++;
    longest = Math.max(longest, i);
  }
  return Math.floor(longest / 4);
}
