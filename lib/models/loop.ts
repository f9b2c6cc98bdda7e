import type {
  HostAgentInput,
  HostAgentIO,
  HostResult,
  HostTool,
  PendingAction,
  ResolveActionInput,
} from '../contract/index.ts';
import { renderHostContext } from '../contract/render.ts';
import { ModelEndpointError } from '../errors/index.ts';
import { budgetSpent, budgetStop } from './budget.ts';
import { chatCompletions } from './chat-completions.ts';
import { clientFor } from './client.ts';
import { identifier, redactEndpointText } from './redact.ts';
import { responses } from './responses.ts';
import { checkArgs, checkValue, jsonSchemaOf, offeredTools } from './tools.ts';
import {
  conversationMessages,
  historyThrough,
  type ModelCall,
  type ModelMessage,
  outputText,
  type Transcript,
} from './transcript.ts';
import type { ModelSettings, ModelTool } from './types.ts';
import type { Wire } from './wire.ts';

const DEFAULT_MAX_TURNS = 10;

/** The tool a model agent with `questions: true` asks the person with. */
const ASK_USER = {
  name: 'ask_user',
  description:
    'Ask the person a question, with options to choose from when there are some, and wait for the answer.',
  parameters: {
    type: 'object',
    properties: { question: { type: 'string' }, options: { type: 'array', items: { type: 'string' } } },
    required: ['question'],
    additionalProperties: false,
  },
};
const WIRES: Record<ModelSettings['api'], Wire> = { chat: chatCompletions, responses };

/** A request's id for a model's call: the run's id and the call's, so that no two turns' requests share one. */
const actionIdOf = (runId: string, callId: string) =>
  `${runId}.${callId.replace(/[^A-Za-z0-9_.:-]/g, '_')}`.slice(0, 128);

/** Where one turn of the loop stands. */
interface Loop {
  settings: ModelSettings;
  io: HostAgentIO;
  runId: string;
  conversationId: string;
  context: HostAgentInput['context'];
  prefix: ModelMessage[];
  transcript: Transcript;
  silent: boolean;
}

/** `invoke` of a model agent: the stored conversation, this message, then the loop. */
export async function invokeModel(
  settings: ModelSettings,
  input: HostAgentInput,
  io: HostAgentIO,
): Promise<HostResult> {
  const prefix = await conversationMessages(input.history, io.parts);
  return run({
    settings,
    io,
    runId: input.runId,
    conversationId: input.conversationId,
    context: input.context,
    prefix,
    silent: input.outputMode === 'host_tools',
    transcript: {
      userMessageId: input.history.at(-1)?.id ?? '',
      turn: [],
      callId: '',
      hostTools: input.tools.host,
    },
    backend: input.tools.backend.map((t) => t.name),
  });
}

/**
 * `resolveAction` of a model agent: the answered call's result goes back to the model (a host
 * tool's result with the continuation's context right after it; an approved call run with the
 * arguments as approved), and the loop goes on.
 */
export async function resumeModel(
  settings: ModelSettings,
  input: ResolveActionInput,
  io: HostAgentIO,
): Promise<HostResult> {
  const transcript = (input.action as { transcript?: Transcript }).transcript;
  if (!transcript) return { content: '' };
  const call = lastCalls(transcript.turn).find((c) => c.id === transcript.callId);
  const r = input.resolution;
  const tool = settings.tools?.find((t) => t.name === call?.name);
  let output: string;
  if (input.action.type === 'host_tool') {
    output = outputText(r.outcome === 'failed' ? { error: r.result ?? 'failed' } : (r.result ?? null));
    if (input.hostContext) output = `${output}\n\n${renderHostContext(input.hostContext)}`;
  } else if (input.action.type === 'user_question') {
    output = outputText(r.expired ? { error: 'Nobody answered in time.' } : { answers: r.answers ?? null });
  } else if (input.action.type === 'client_tool') {
    output = outputText(r.error !== undefined ? { error: r.error } : (r.output ?? null));
  } else if (r.decision !== 'approve') {
    output = outputText({
      error: r.expired
        ? 'Nobody approved this call in time; it was not run.'
        : 'The user denied this call; it was not run.',
      ...(typeof r.comment === 'string' && r.comment !== '' && { comment: r.comment }),
    });
  } else {
    const args = r.approvedArgs ?? input.action.args;
    const checked = await checkValue(tool?.approval?.argsSchema ?? tool?.parameters, args);
    output = checked.ok
      ? await execute(tool, transcript.callId, checked.args, io, input)
      : outputText({ error: `The approved arguments do not fit: ${checked.error}` });
  }
  transcript.turn.push({ role: 'tool', callId: transcript.callId, output });
  const attachments = await io.parts();
  if (attachments.length > 0) transcript.turn.push({ role: 'user', content: attachments });
  const hostTools = input.hostContext
    ? [
        ...transcript.hostTools.filter((t) => t.source !== 'request'),
        ...(input.hostContext.actions ?? []).map(
          (a): HostTool => ({
            name: a.name,
            ...(a.description !== undefined && { description: a.description }),
            parameters: a.parameters as Record<string, unknown>,
            source: 'request',
          }),
        ),
      ]
    : transcript.hostTools;
  const prefix = await conversationMessages(
    historyThrough(input.history, transcript.userMessageId),
    io.parts,
  );
  return run({
    settings,
    io,
    runId: input.runId,
    conversationId: input.conversationId,
    context: input.context,
    prefix,
    silent: false,
    transcript: { ...transcript, hostTools },
    backend: (settings.tools ?? []).map((t) => t.name),
  });
}

const lastCalls = (turn: ModelMessage[]): ModelCall[] => {
  for (let i = turn.length - 1; i >= 0; i--) {
    const m = turn[i];
    if (m?.role === 'assistant') return m.calls;
  }
  return [];
};

/** Runs a backend tool, reporting it as `tool_use` and `tool_result`: its result (or its error) as the model reads it. */
async function execute(
  tool: ModelTool | undefined,
  callId: string,
  args: unknown,
  io: HostAgentIO,
  at: { conversationId: string; context: HostAgentInput['context'] },
): Promise<string> {
  const name = tool?.name ?? '';
  io.emit({ type: 'tool_use', id: callId, name, args });
  try {
    const result = await tool?.execute?.(args, {
      signal: io.signal,
      files: io.files,
      context: at.context,
      conversationId: at.conversationId,
      callId,
    });
    io.emit({ type: 'tool_result', id: callId, name, result: result ?? null });
    return outputText(result ?? null);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.emit({ type: 'tool_result', id: callId, name, error: message });
    return outputText({ error: message });
  }
}

/** The model loop: call the model, stream its text, run or hand over its calls, until it answers or pauses. */
async function run(loop: Loop & { backend: string[] }): Promise<HostResult> {
  const { settings, io, transcript } = loop;
  const wire = WIRES[settings.api];
  const own = settings.tools ?? [];
  const offeredBackend = loop.silent ? [] : loop.backend.map((name) => ({ name }));
  const tools = offeredTools(transcript.hostTools, offeredBackend, own);
  if (settings.questions && !loop.silent) tools.push(ASK_USER);
  const hostNames = new Set(transcript.hostTools.map((t) => t.name));
  const client = await clientFor(settings, loop.io);
  const maxTurns = settings.maxTurns ?? DEFAULT_MAX_TURNS;
  for (let step = 0; step < maxTurns; step++) {
    if (await budgetSpent(io)) return budgetStop();
    let answer: Awaited<ReturnType<Wire>>;
    try {
      answer = await wire(
        client,
        {
          model: settings.model,
          system: settings.system,
          messages: [...loop.prefix, ...transcript.turn],
          tools,
          toolChoice: loop.silent ? 'required' : 'auto',
          temperature: settings.temperature,
          signal: io.signal,
        },
        (text) => {
          if (!loop.silent) io.emit({ type: 'text', text });
        },
      );
    } catch (error) {
      if (io.signal.aborted) return { status: 'cancelled', stopReason: 'cancelled' };
      throw endpointError(error, client.apiKey ?? undefined);
    }
    if (answer.usage) io.emit({ type: 'usage', usage: answer.usage });
    transcript.turn.push({ role: 'assistant', text: answer.text, calls: answer.calls });
    if (answer.calls.length === 0) return {};
    let pause: PendingAction | undefined;
    for (const call of answer.calls) {
      if (io.signal.aborted) return { status: 'cancelled', stopReason: 'cancelled' };
      const output = pause
        ? outputText({
            error: 'Not run: the turn waits on an earlier call. Call it again if it is still needed.',
          })
        : await handle(loop, call, hostNames, own, (asked) => {
            pause = asked;
          });
      if (loop.silent && pause) return {};
      if (output !== undefined) transcript.turn.push({ role: 'tool', callId: call.id, output });
    }
    if (pause) {
      // The paused call's id is where its answer goes; the calls after it were answered above.
      const waiting = pause as PendingAction & { callId: string };
      const { callId, ...asked } = waiting;
      return { pendingActions: [{ ...asked, transcript: { ...transcript, callId } }] };
    }
  }
  return { status: 'incomplete', stopReason: 'max_turns' };
}

/**
 * One call of the model: a host tool is handed to the host (the turn pauses on it), a tool that
 * needs approval is asked, a client tool is asked of the page, a backend tool runs. Returns the
 * output the model reads, or undefined when the turn pauses on the call.
 */
async function handle(
  loop: Loop,
  call: ModelCall,
  hostNames: Set<string>,
  own: ModelTool[],
  pauseOn: (asked: PendingAction & { callId: string }) => void,
): Promise<string | undefined> {
  const { io, runId } = loop;
  const id = actionIdOf(runId, call.id);
  const tool = own.find((t) => t.name === call.name);
  if (hostNames.has(call.name)) {
    const host = loop.transcript.hostTools.find((t) => t.name === call.name);
    const checked = await checkArgs(host?.parameters, call.args);
    if (!checked.ok) return outputText({ error: checked.error });
    io.emit({ type: 'tool_use', id, name: call.name, args: checked.args });
    pauseOn({ id, type: 'host_tool', toolName: call.name, args: checked.args, callId: call.id });
    return undefined;
  }
  if (call.name === ASK_USER.name && loop.settings.questions && !loop.silent) {
    const asked = await checkArgs(ASK_USER.parameters, call.args);
    if (!asked.ok) return outputText({ error: asked.error });
    const { question, options } = asked.args as { question: string; options?: string[] };
    pauseOn({
      id,
      type: 'user_question',
      title: question,
      questions: [{ question, ...(options && { options: options.map((label) => ({ label })) }) }],
      callId: call.id,
    });
    return undefined;
  }
  if (!tool || loop.silent) return outputText({ error: `There is no tool named "${call.name}".` });
  const checked = await checkArgs(tool.parameters, call.args);
  if (!checked.ok) {
    io.emit({ type: 'tool_use', id: call.id, name: call.name, args: call.args });
    io.emit({ type: 'tool_result', id: call.id, name: call.name, error: checked.error });
    return outputText({ error: checked.error });
  }
  const needsApproval =
    tool.approval !== undefined ||
    (typeof tool.needsApproval === 'function'
      ? await tool.needsApproval(checked.args)
      : tool.needsApproval === true);
  if (needsApproval) {
    const title = tool.approval?.title;
    pauseOn({
      id,
      type: 'tool_approval',
      toolName: tool.name,
      title: typeof title === 'function' ? title(checked.args) : (title ?? `Run ${tool.name}?`),
      args: checked.args,
      argsSchema: jsonSchemaOf(tool.approval?.argsSchema ?? tool.parameters),
      callId: call.id,
    });
    return undefined;
  }
  if (tool.execute === undefined) {
    pauseOn({ id, type: 'client_tool', toolName: tool.name, args: checked.args, callId: call.id });
    return undefined;
  }
  return execute(tool, call.id, checked.args, io, loop);
}

/**
 * An endpoint's failure as the turn reports it: its status, its error type and code, and its
 * message redacted ({@link redactEndpointText}, with the key this client sends); a connection
 * failure as such. The endpoint's own text goes nowhere else: the error carries no cause. A reply
 * the readers refused (malformed, too large) is already a {@link ModelEndpointError} and names no
 * value the endpoint sent.
 */
function endpointError(error: unknown, key?: string): ModelEndpointError {
  if (error instanceof ModelEndpointError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    status?: unknown;
    message?: unknown;
    type?: unknown;
    code?: unknown;
  };
  const raw = typeof e.message === 'string' ? e.message : String(error);
  const kinds = [identifier(e.type), identifier(e.code)].filter(Boolean);
  const kind = kinds.length > 0 ? ` (${kinds.join(', ')})` : '';
  if (typeof e.status === 'number') {
    const message = redactEndpointText(raw.replace(/^\d{3}\s*/, ''), key);
    return new ModelEndpointError(`The model endpoint answered ${e.status}${kind}: ${message}`, e.status);
  }
  return new ModelEndpointError(`The model endpoint failed${kind}: ${redactEndpointText(raw, key)}`);
}
