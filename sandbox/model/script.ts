/**
 * The scripted model's script: rules that say what the model answers to a prompt (text deltas, tool
 * calls, usage) or which error the endpoint answers with. docs/models.md ("The sandbox model")
 * describes the format; each field is described once, here.
 */
import * as z from 'zod';

/** A pattern: a substring (case-insensitive), a RegExp, or, in JSON, `{ "regex": "…", "flags": "i" }`. */
const Pattern = z.union([
  z.string(),
  z.instanceof(RegExp),
  z
    .object({ regex: z.string(), flags: z.string().optional() })
    .strict()
    .refine(
      ({ regex, flags }) => {
        try {
          new RegExp(regex, flags);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'not a valid regular expression' },
    ),
]);

/** A tool call the model makes. */
const ScriptToolCall = z
  .object({
    /** The function's name: it must be one of the request's `tools` (unless `unoffered`). */
    name: z.string().min(1),
    /**
     * Its arguments: an object is sent as JSON; a string is sent as it is, which is how a script
     * makes the model send arguments that are not JSON (`'{"amount": '`). Default `{}`.
     */
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
    /**
     * The call's id. Default `call_N`, N counting the tool calls of the conversation, this one included
     * (the first call of a conversation is `call_1`, whatever else the server answered).
     */
    id: z.string().min(1).optional(),
    /** The model calls a tool the request does not offer, on purpose (as a model may): not a script error. */
    unoffered: z.boolean().optional(),
  })
  .strict();

/** Token counts that replace the estimated ones (about 4 characters a token). */
const ScriptUsage = z
  .object({
    promptTokens: z.number().int().nonnegative().optional(),
    completionTokens: z.number().int().nonnegative().optional(),
    /** Default: the prompt's longest prefix shared with an earlier request's prompt, as a prompt cache would. */
    cachedTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

/** What the model answers. */
const ScriptReply = z
  .object({
    /** The answer's text: a string is streamed a word at a time, an array is the deltas as given. */
    text: z.union([z.string(), z.array(z.string())]).optional(),
    /** Tool calls, after the text (streamed in pieces: name first, then the arguments in parts). */
    toolCalls: z.array(ScriptToolCall).optional(),
    usage: ScriptUsage.optional(),
    /** Why the answer ends. Default `tool_calls` when it calls tools, else `stop`. */
    finishReason: z.enum(['stop', 'length', 'content_filter']).optional(),
    /**
     * After the text deltas, the stream (or, not streamed, the response) waits until the client
     * disconnects or the test calls `release()`: how a test cancels a turn mid-answer.
     */
    pauseUntilAborted: z.boolean().optional(),
  })
  .strict();

/** An error the endpoint answers with, as OpenAI's API does: `{ error: { message, type, param, code } }`. */
const ScriptError = z
  .object({
    status: z.number().int().min(400).max(599),
    message: z.string(),
    /** Default: `rate_limit_exceeded`'s type for a 429, `server_error` from 500, else `invalid_request_error`. */
    type: z.string().optional(),
    code: z.string().nullable().optional(),
    /** Seconds, sent as the `retry-after` header (0 lets the client retry at once). */
    retryAfter: z.number().nonnegative().optional(),
  })
  .strict();

/** One rule: the first rule that matches a request answers it. */
const ScriptRule = z
  .object({
    /**
     * Tested against the prompt's last user message or tool result: its text, without the
     * `<host_context>` block Switchboard puts at its start (or after a tool result). Absent: every prompt.
     */
    match: Pattern.optional(),
    /** Tested against what that `<host_context>` block holds (the host's view, selection, actions…). */
    context: Pattern.optional(),
    /** Only when the last of them is a user message (`user`) or a tool result (`tool`). */
    on: z.enum(['user', 'tool']).optional(),
    /** Only when the last of them is the result of this tool. */
    tool: z.string().optional(),
    /** The rule answers this many requests, then no more (so a 429 can fail the first attempts only). */
    times: z.number().int().positive().optional(),
    reply: ScriptReply.optional(),
    error: ScriptError.optional(),
  })
  .strict()
  .refine((rule) => (rule.reply === undefined) !== (rule.error === undefined), {
    message: 'a rule has a reply or an error (one of them)',
  });

/** A script: its rules, in order, and the reply when none matches. */
export const ModelScriptSchema = z
  .object({
    rules: z.array(ScriptRule).default([]),
    /** Default: a text saying that no rule matches, and what the prompt was. */
    default: ScriptReply.optional(),
  })
  .strict();

/** A script, as written (a JSON file, or an object in TypeScript). */
export type ModelScript = z.input<typeof ModelScriptSchema>;
/** A script, checked. */
export type CheckedScript = z.output<typeof ModelScriptSchema>;
export type ScriptRuleOf = z.output<typeof ScriptRule>;
export type ScriptReplyOf = z.output<typeof ScriptReply>;
export type ScriptErrorOf = z.output<typeof ScriptError>;

/** Checks a script; a mistake throws an Error naming the field. */
export function checkScript(script: unknown): CheckedScript {
  const parsed = ModelScriptSchema.safeParse(script ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'the script';
  throw new Error(`Invalid model script: ${where}: ${issue?.message ?? 'invalid'}`);
}

/** What a request's rules are matched against: its last user message or tool result. */
export interface PromptInput {
  from: 'user' | 'tool';
  /** Its text, without the `<host_context>` blocks. */
  text: string;
  /** What its `<host_context>` blocks hold (empty when it has none). */
  context: string;
  /** The tool whose result it is. */
  toolName?: string;
}

const HOST_CONTEXT = /<host_context>([\s\S]*?)<\/host_context>/g;

/** A user message or tool result, its `<host_context>` blocks (the host contract's) apart from its text. */
export function promptInput(from: PromptInput['from'], raw: string, toolName?: string): PromptInput {
  const context = [...raw.matchAll(HOST_CONTEXT)].map((m) => (m[1] ?? '').trim()).join('\n');
  return {
    from,
    text: raw.replace(HOST_CONTEXT, '').trim(),
    context,
    ...(toolName !== undefined && { toolName }),
  };
}

function matches(pattern: ScriptRuleOf['match'], text: string): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === 'string') return text.toLowerCase().includes(pattern.toLowerCase());
  if (pattern instanceof RegExp) {
    pattern.lastIndex = 0;
    return pattern.test(text);
  }
  return new RegExp(pattern.regex, pattern.flags).test(text);
}

/**
 * The input after `next`: a user message that holds nothing but a `<host_context>` block, right after
 * a tool result, is that result's context (a continuation's context follows its tool result).
 */
export function nextInput(previous: PromptInput | undefined, next: PromptInput): PromptInput {
  if (next.from !== 'user' || next.text !== '' || previous?.from !== 'tool') return next;
  return { ...previous, context: [previous.context, next.context].filter((c) => c !== '').join('\n') };
}

/** Whether `rule` applies to `input` (its `times` aside). */
export function ruleMatches(rule: ScriptRuleOf, input: PromptInput | undefined): boolean {
  if (rule.on !== undefined && rule.on !== input?.from) return false;
  if (rule.tool !== undefined && (input?.from !== 'tool' || input.toolName !== rule.tool)) return false;
  if (rule.context !== undefined && !matches(rule.context, input?.context ?? '')) return false;
  return matches(rule.match, input?.text ?? '');
}

/** A rule, shown in an error: its number and its pattern. */
export function describeRule(index: number | 'default', rule?: ScriptRuleOf): string {
  if (index === 'default') return 'the default reply';
  const pattern = rule?.match;
  const shown =
    pattern === undefined
      ? ''
      : typeof pattern === 'string'
        ? ` (match ${JSON.stringify(pattern)})`
        : pattern instanceof RegExp
          ? ` (match ${pattern})`
          : ` (match /${pattern.regex}/${pattern.flags ?? ''})`;
  return `rule ${index + 1}${shown}`;
}

/** The text's deltas: a string a word at a time (each word with the spaces after it), an array as given. */
export function deltasOf(text: string | string[] | undefined): string[] {
  if (text === undefined) return [];
  if (Array.isArray(text)) return text;
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

/** A tool call's arguments as sent: an object as JSON, a string as it is. */
export function argumentsText(args: string | Record<string, unknown>): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** The arguments in up to three pieces, as a model streams them. */
export function argumentPieces(text: string): string[] {
  if (text.length < 3) return text === '' ? [] : [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter((p) => p !== '');
}
