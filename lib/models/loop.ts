import type {
  Attachment,
  ContinueTurnInput,
  HostAgentInput,
  HostAgentIO,
  HostResult,
  HostTool,
  ImagePart,
  PendingAction,
  ResolveActionInput,
} from '../contract/index.ts';
import { screenshotParts } from '../contract/index.ts';
import { renderHostContext } from '../contract/render.ts';
import { AgentFailedError, ModelEndpointError } from '../errors/index.ts';
import { budgetSpent } from './budget.ts';
import { chatCompletions } from './chat-completions.ts';
import { clientFor } from './client.ts';
import { isMcpTool, type McpIdentity, mcpToolNamed, turnMcpTools } from './mcp/tools.ts';
import type { ToolAnswer } from './mcp/untrusted.ts';
import { identifier, redactEndpointText } from './redact.ts';
import { responses } from './responses.ts';
import { chatSpan, providerOf, serverAddress, type ToolSpan, toolSpan } from './spans.ts';
import { checkArgs, checkValue, jsonSchemaOf, offeredTools } from './tools.ts';
import {
  conversationMessages,
  historyThrough,
  kept,
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
/**
 * The tool a turn with a screenshot offers (the host contract's `look_at_screen`): the model sees the
 * screenshots only when it calls it, as images in the message after the call's result.
 */
const LOOK_AT_SCREEN = {
  name: 'look_at_screen',
  description:
    "Look at the user's screen: the screenshots the app sent with this turn, shown to you as images right after this call.",
  parameters: { type: 'object', properties: {}, additionalProperties: false },
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
  /** A resumed turn takes steering before its first model call (the results it waited on are in). */
  resumed?: boolean;
  /** The images the calls of the response being handled returned. */
  shown: Shown;
}

/** A request a response's call asks, with the call it answers (and the MCP tool it is, for an approval). */
type Asked = PendingAction & { callId: string; mcp?: McpIdentity };

/** The images tools returned for one response's calls (MCP tools' image content), by call id. */
type Shown = [callId: string, images: ImagePart[]][];

/** What the model reads after a response's results when its tools returned images: the images, shown once. */
const shownMessage = (shown: Shown): ModelMessage => ({
  role: 'user',
  content: [
    { type: 'text', text: 'The images the tools returned, in the order of their calls:' },
    ...shown.flatMap(([, images]) => images),
  ],
  notKept: '[The images the tools returned here are not kept.]',
});

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
    shown: [],
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
  const transcript = transcriptOf(input.action);
  if (!transcript) return { content: '' };
  // The model gets every result of one response together: while another of its requests is open, the turn waits on.
  const sameResponse = (t: Transcript | undefined) => t?.pause !== undefined && t.pause === transcript.pause;
  if (input.pendingActions.some((a) => sameResponse(transcriptOf(a))))
    return { pendingActions: input.pendingActions };
  const outputs = new Map(transcript.held ?? []);
  const shown: Shown = [];
  const at = { conversationId: input.conversationId, context: input.context, shown };
  for (const earlier of input.answeredBefore) {
    const theirs = transcriptOf(earlier.action);
    if (!theirs || !sameResponse(theirs)) continue;
    const answered = earlier.status === 'resolved' ? earlier.resolution : undefined;
    outputs.set(theirs.callId, await outputOf(settings, earlier.action, answered, theirs.callId, io, at));
  }
  outputs.set(
    transcript.callId,
    await outputOf(settings, input.action, input.resolution, transcript.callId, io, at, input.hostContext),
  );
  // Each call of the response gets its result, in the model's order (one answered before a
  // response's results were held, in a turn paused by an older version, is not answered again).
  const calls = lastCalls(transcript.turn);
  const done = new Set(transcript.turn.flatMap((m) => (m.role === 'tool' ? [m.callId] : [])));
  for (const call of calls) {
    if (done.has(call.id)) continue;
    const output = outputs.get(call.id) ?? outputText({ error: 'Not answered: the request was withdrawn.' });
    transcript.turn.push({ role: 'tool', callId: call.id, output });
  }
  if (shown.length > 0) transcript.turn.push(shownMessage(shown));
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
  const { pause: _pause, held: _held, ...resumed } = transcript;
  return carryOn(
    settings,
    input,
    io,
    { ...resumed, hostTools },
    (settings.tools ?? []).map((t) => t.name),
  );
}

/**
 * The loop carried on from a kept turn (an answer's, or a continue's): the stored conversation up to
 * the turn's user message, the turn's messages, then the steering sent meanwhile and the next model call.
 */
async function carryOn(
  settings: ModelSettings,
  input: Pick<ResolveActionInput, 'runId' | 'conversationId' | 'context' | 'history'>,
  io: HostAgentIO,
  transcript: Transcript,
  backend: string[],
): Promise<HostResult> {
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
    resumed: true,
    shown: [],
    transcript,
    backend,
  });
}

/** The transcript a request of the loop carries, when it has one. */
const transcriptOf = (action: PendingAction): Transcript | undefined =>
  (action as { transcript?: Transcript }).transcript;

/**
 * What the model reads as one paused call's result: a host tool's result (with the continuation's
 * context after it, `context`), a question's answers, a client tool's output, or an approved call
 * run with the arguments as approved. A request that ended without an answer (`resolution`
 * undefined: withdrawn, superseded) says so.
 */
async function outputOf(
  settings: ModelSettings,
  action: PendingAction,
  resolution: Record<string, unknown> | undefined,
  callId: string,
  io: HostAgentIO,
  at: { conversationId: string; context: HostAgentInput['context']; shown: Shown },
  context?: ResolveActionInput['hostContext'],
): Promise<string> {
  if (!resolution) return outputText({ error: 'Not answered: the request was withdrawn.' });
  const r = resolution;
  if (action.type === 'host_tool') {
    const output = outputText(r.outcome === 'failed' ? { error: r.result ?? 'failed' } : (r.result ?? null));
    return context ? `${output}\n\n${renderHostContext(context)}` : output;
  }
  if (action.type === 'user_question')
    return outputText(r.expired ? { error: 'Nobody answered in time.' } : { answers: r.answers ?? null });
  if (action.type === 'client_tool')
    return outputText(r.error !== undefined ? { error: r.error } : (r.output ?? null));
  if (r.decision !== 'approve')
    return outputText({
      error: r.expired
        ? 'Nobody approved this call in time; it was not run.'
        : 'The user denied this call; it was not run.',
      ...(typeof r.comment === 'string' && r.comment !== '' && { comment: r.comment }),
    });
  const tool = await approvedTool(settings, io, action);
  if (!tool)
    return outputText({ error: `The tool ${action.toolName ?? ''} is no longer offered; it was not run.` });
  const args = r.approvedArgs ?? action.args;
  const checked = await checkValue(tool.approval?.argsSchema ?? tool.parameters, args);
  return checked.ok
    ? await execute(tool, callId, checked.args, io, { ...at, settings })
    : outputText({ error: `The approved arguments do not fit: ${checked.error}` });
}

/**
 * The tool an approved call runs: the agent's own by its name, else the MCP server's tool the call
 * was asked for (the identity its request keeps), as long as it is still that tool.
 */
async function approvedTool(
  settings: ModelSettings,
  io: HostAgentIO,
  action: PendingAction,
): Promise<ModelTool | undefined> {
  const own = settings.tools?.find((t) => t.name === action.toolName);
  if (own || !settings.mcpServers || action.toolName === undefined) return own;
  return mcpToolNamed(settings.mcpServers, io, action.toolName, {
    ...(transcriptOf(action)?.mcp && { identity: transcriptOf(action)?.mcp }),
    argsSchema: action.argsSchema,
  });
}

const lastCalls = (turn: ModelMessage[]): ModelCall[] => {
  for (let i = turn.length - 1; i >= 0; i--) {
    const m = turn[i];
    if (m?.role === 'assistant') return m.calls;
  }
  return [];
};

/**
 * Runs a backend tool in its `execute_tool` span, reporting it as `tool_use` and `tool_result`: its
 * result (or its error) as the model reads it.
 */
async function execute(
  tool: ModelTool | undefined,
  callId: string,
  args: unknown,
  io: HostAgentIO,
  at: { conversationId: string; context: HostAgentInput['context']; settings: ModelSettings; shown: Shown },
  remembered = false,
): Promise<string> {
  const name = tool?.name ?? '';
  const capture = captures(at.settings);
  return toolSpan({ name, callId, capture, args }, async (span) => {
    io.emit({ type: 'tool_use', id: callId, name, args, ...(remembered && { remembered: true as const }) });
    try {
      const result = await tool?.execute?.(args, {
        signal: io.signal,
        files: io.files,
        context: at.context,
        conversationId: at.conversationId,
        callId,
      });
      if (isMcpTool(tool)) return answered(result as ToolAnswer, { callId, name, io, span, shown: at.shown });
      io.emit({ type: 'tool_result', id: callId, name, result: result ?? null });
      span.outcome('succeeded', { result: result ?? null });
      return outputText(result ?? null);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      io.emit({ type: 'tool_result', id: callId, name, error: message });
      span.outcome('failed', { error });
      return outputText({ error: message });
    }
  });
}

/**
 * An MCP tool's answer reported and read: a failure (`isError`, a time-out, a server that failed) as a
 * failed result the model is told about; else its data as the result, its text for the model, and
 * its images kept to be shown after the response's results.
 */
function answered(
  answer: ToolAnswer,
  at: { callId: string; name: string; io: HostAgentIO; span: ToolSpan; shown: Shown },
): string {
  const { callId, name, io, span } = at;
  if (answer.failed) {
    io.emit({ type: 'tool_result', id: callId, name, error: answer.text });
    span.outcome('failed');
    return outputText({ error: answer.text });
  }
  io.emit({ type: 'tool_result', id: callId, name, result: answer.data });
  span.outcome('succeeded', { result: answer.data });
  if (answer.images.length > 0) at.shown.push([callId, answer.images]);
  return answer.text;
}

/** Whether the agent's registration turns content capture on (`telemetry.captureContent`). */
const captures = (settings: ModelSettings) => settings.telemetry?.captureContent === true;

/** A call the turn hands over (to the host, a person, the page): a span that says so, and ends at once. */
const handedOver = (settings: ModelSettings, call: ModelCall, outcome: 'paused' | 'host', args?: unknown) =>
  toolSpan({ name: call.name, callId: call.id, capture: captures(settings), args }, async (span) =>
    span.outcome(outcome),
  );

/** The model's messages as GenAI's input messages (captured content): text, tool calls and results, no file bytes. */
function genAiMessages(messages: ModelMessage[]): unknown[] {
  return messages.map((m) =>
    m.role === 'user'
      ? {
          role: 'user',
          parts: m.content.map((p) =>
            p.type === 'text' ? { type: 'text', content: p.text } : { type: p.type, mime_type: p.mediaType },
          ),
        }
      : m.role === 'assistant'
        ? { role: 'assistant', parts: genAiAnswerParts(m.text, m.calls) }
        : { role: 'tool', parts: [{ type: 'tool_call_response', id: m.callId, response: m.output }] },
  );
}

const genAiAnswerParts = (text: string, calls: ModelCall[]) => [
  ...(text !== '' ? [{ type: 'text', content: text }] : []),
  ...calls.map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.args })),
];

/**
 * The model loop: call the model, stream its text, run or hand over its calls, until it answers or
 * pauses. Before each model call but a new turn's first, the steering messages sent meanwhile join
 * the turn. A response's calls are all handled before anything is handed over: backend tools run,
 * and the rest (host actions, approvals, questions, client tools) are asked together; the model gets
 * every result of that response at once, in its order.
 */
async function run(loop: Loop & { backend: string[] }): Promise<HostResult> {
  const { settings, io, transcript } = loop;
  const wire = WIRES[settings.api];
  const hostNames = new Set(transcript.hostTools.map((t) => t.name));
  const mcp = await mcpToolsOf(loop, hostNames);
  const own = [...(settings.tools ?? []), ...mcp];
  const offeredBackend = loop.silent
    ? []
    : [...loop.backend, ...mcp.map((t) => t.name)].map((name) => ({ name }));
  const tools = offeredTools(transcript.hostTools, offeredBackend, own);
  if (settings.questions && !loop.silent) tools.push(ASK_USER);
  // A turn with a screenshot offers look_at_screen (unless a tool of its own has the name).
  const screens = loop.silent ? [] : await io.lookAtScreen();
  const looks = screens.length > 0 && !tools.some((t) => t.name === LOOK_AT_SCREEN.name);
  if (looks) tools.push(LOOK_AT_SCREEN);
  const client = await clientFor(settings, loop.io);
  const maxTurns = settings.maxTurns ?? DEFAULT_MAX_TURNS;
  for (let step = 0; step < maxTurns; step++) {
    if (await budgetSpent(io)) return stoppedAt(loop, 'budget_reached');
    if (step > 0 || loop.resumed) await takeSteering(loop);
    let answer: Awaited<ReturnType<Wire>>;
    const messages = [...loop.prefix, ...transcript.turn];
    try {
      answer = await chatSpan(
        {
          provider: providerOf(settings.baseURL),
          model: settings.model,
          serverAddress: serverAddress(settings.baseURL),
          capture: captures(settings),
          input: () => genAiMessages(messages),
          ...(settings.system !== undefined && { system: settings.system }),
        },
        async (span) => {
          try {
            const answered = await wire(
              client,
              {
                model: settings.model,
                system: settings.system,
                messages,
                tools,
                toolChoice: loop.silent ? 'required' : 'auto',
                temperature: settings.temperature,
                signal: io.signal,
              },
              (text) => {
                span.firstToken();
                if (!loop.silent) io.emit({ type: 'text', text });
              },
            );
            span.answered({
              ...(answered.responseModel && { responseModel: answered.responseModel }),
              ...(answered.usage && { usage: answered.usage }),
              finishReasons: [answered.finishReason ?? (answered.calls.length > 0 ? 'tool_calls' : 'stop')],
              output: () => [
                {
                  role: 'assistant',
                  parts: genAiAnswerParts(answered.text, answered.calls),
                  finish_reason: answered.finishReason,
                },
              ],
            });
            return answered;
          } catch (error) {
            // The span says what failed as the turn does: the endpoint's text redacted, never raw.
            const reported = endpointError(error, client.apiKey ?? undefined);
            // `error.type`: the endpoint's HTTP status when it answered one, else the error's kind.
            const type = io.signal.aborted
              ? 'cancelled'
              : reported.endpointStatus !== undefined
                ? String(reported.endpointStatus)
                : reported.name;
            span.failed(type, reported.message);
            throw reported;
          }
        },
      );
    } catch (error) {
      if (io.signal.aborted) return { status: 'cancelled', stopReason: 'cancelled' };
      throw endpointError(error, client.apiKey ?? undefined);
    }
    if (answer.usage) io.emit({ type: 'usage', usage: answer.usage });
    transcript.turn.push({ role: 'assistant', text: answer.text, calls: answer.calls });
    if (answer.calls.length === 0) return {};
    const asked: Asked[] = [];
    const outputs: [string, string][] = [];
    let looked = false;
    loop.shown = [];
    for (const call of answer.calls) {
      if (io.signal.aborted) return { status: 'cancelled', stopReason: 'cancelled' };
      if (looks && call.name === LOOK_AT_SCREEN.name) {
        outputs.push([call.id, look(io, call.id, screens)]);
        looked = true;
        continue;
      }
      const output = await handle(loop, call, hostNames, own, (request) => asked.push(request));
      // A silent decision proposes one host action: the first ends the turn.
      if (loop.silent && asked.length > 0) return {};
      if (output !== undefined) outputs.push([call.id, output]);
    }
    if (asked.length > 0) {
      const pause = `${loop.runId}.${transcript.turn.length}`;
      // The screenshots are not kept for the answer: a look in this response is answered so.
      const held = outputs.map(([callId, output]): [string, string] =>
        looked && answer.calls.some((c) => c.id === callId && c.name === LOOK_AT_SCREEN.name)
          ? [callId, outputText({ error: 'The screenshots are no longer available.' })]
          : loop.shown.some(([id]) => id === callId)
            ? [callId, `${output}\n[The images of this result are no longer available.]`]
            : [callId, output],
      );
      const stored = kept(transcript);
      return {
        pendingActions: asked.map(({ callId, mcp, ...request }) => ({
          ...request,
          transcript: { ...stored, callId, pause, held, ...(mcp && { mcp }) },
        })),
      };
    }
    for (const [callId, output] of outputs) transcript.turn.push({ role: 'tool', callId, output });
    if (loop.shown.length > 0) transcript.turn.push(shownMessage(loop.shown));
    if (looked)
      transcript.turn.push({
        role: 'user',
        content: screenshotParts(screens),
        notKept: '[The screenshots shown here are not kept.]',
      });
  }
  return stoppedAt(loop, 'max_turns');
}

/**
 * The tools of the agent's MCP servers this turn (none in a silent decision), the warnings of their
 * servers emitted as the turn's `agent.warning` events.
 */
async function mcpToolsOf(loop: Loop, hostNames: ReadonlySet<string>) {
  const servers = loop.settings.mcpServers ?? [];
  if (loop.silent || servers.length === 0) return [];
  const own = new Set((loop.settings.tools ?? []).map((t) => t.name));
  const { tools, warnings } = await turnMcpTools(servers, loop.io, { own, host: hostNames });
  for (const warning of warnings) loop.io.emit(warning);
  return tools;
}

/** A `look_at_screen` call: reported as a tool call; the model reads that the screenshots follow. */
function look(io: HostAgentIO, callId: string, screens: Attachment[]): string {
  io.emit({ type: 'tool_use', id: callId, name: LOOK_AT_SCREEN.name, args: {} });
  const result = { screenshots: screens.length };
  io.emit({ type: 'tool_result', id: callId, name: LOOK_AT_SCREEN.name, result });
  return `${screens.length === 1 ? 'The screenshot follows' : `The ${screens.length} screenshots follow`} in the next message.`;
}

/**
 * The steering messages sent while the turn runs, as user messages of the turn (each its frozen
 * prompt, with the context the host contract renders before steering text, and its attachments).
 * A silent host decision takes none.
 */
async function takeSteering(loop: Loop): Promise<void> {
  if (loop.silent) return;
  for (const message of await loop.io.takeSteering()) {
    loop.transcript.turn.push({
      role: 'user',
      content: [{ type: 'text', text: message.prompt }, ...(await loop.io.parts(message.id))],
    });
  }
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
  pauseOn: (asked: Asked) => void,
): Promise<string | undefined> {
  const { io, runId } = loop;
  const id = actionIdOf(runId, call.id);
  const tool = own.find((t) => t.name === call.name);
  if (hostNames.has(call.name)) {
    const host = loop.transcript.hostTools.find((t) => t.name === call.name);
    const checked = await checkArgs(host?.parameters, call.args);
    if (!checked.ok) return outputText({ error: checked.error });
    io.emit({ type: 'tool_use', id, name: call.name, args: checked.args });
    await handedOver(loop.settings, call, 'host', checked.args);
    pauseOn({ id, type: 'host_tool', toolName: call.name, args: checked.args, callId: call.id });
    return undefined;
  }
  if (call.name === ASK_USER.name && loop.settings.questions && !loop.silent) {
    const asked = await checkArgs(ASK_USER.parameters, call.args);
    if (!asked.ok) return outputText({ error: asked.error });
    const { question, options } = asked.args as { question: string; options?: string[] };
    await handedOver(loop.settings, call, 'paused');
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
    const remembered = await runRemembered(loop, tool, call, checked.args);
    if (remembered !== undefined) return remembered;
    const title = tool.approval?.title;
    await handedOver(loop.settings, call, 'paused', checked.args);
    pauseOn({
      id,
      type: 'tool_approval',
      toolName: tool.name,
      title: typeof title === 'function' ? title(checked.args) : (title ?? `Run ${tool.name}?`),
      args: checked.args,
      argsSchema: jsonSchemaOf(tool.approval?.argsSchema ?? tool.parameters),
      callId: call.id,
      ...(isMcpTool(tool) && { mcp: tool.mcp }),
    });
    return undefined;
  }
  if (tool.execute === undefined) {
    await handedOver(loop.settings, call, 'paused', checked.args);
    pauseOn({ id, type: 'client_tool', toolName: tool.name, args: checked.args, callId: call.id });
    return undefined;
  }
  return execute(tool, call.id, checked.args, io, loop);
}

/**
 * A call of a tool that needs approval, when the tool is remembered for the session
 * (`io.rememberedTools`): it runs without asking, with the arguments the model wrote, checked as
 * approved arguments are (the approval's `argsSchema`, else the tool's parameters), and its
 * `tool_use` says `remembered: true`. Undefined when the tool is not remembered: the call is asked.
 */
async function runRemembered(
  loop: Loop,
  tool: ModelTool,
  call: ModelCall,
  args: unknown,
): Promise<string | undefined> {
  if (!loop.io.rememberedTools?.includes(tool.name)) return undefined;
  const checked = await checkValue(tool.approval?.argsSchema ?? tool.parameters, args);
  if (!checked.ok) {
    const error = `The arguments do not fit: ${checked.error}`;
    loop.io.emit({ type: 'tool_use', id: call.id, name: tool.name, args, remembered: true });
    loop.io.emit({ type: 'tool_result', id: call.id, name: tool.name, error });
    return outputText({ error });
  }
  return execute(tool, call.id, checked.args, loop.io, loop, true);
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

/**
 * A turn the loop stopped before the model answered (`max_turns`, or `budget_reached`): `incomplete`,
 * with what `continueModel` needs to carry it on (its messages without the screenshots, the host
 * tools it was offered, the user message it answers).
 */
function stoppedAt(loop: Loop, stopReason: 'max_turns' | 'budget_reached'): HostResult {
  const { userMessageId, turn, hostTools } = kept(loop.transcript);
  return { status: 'incomplete', stopReason, resume: { modelLoop: { userMessageId, turn, hostTools } } };
}

/**
 * `continueTurn` of a model agent: the loop stopped at `max_turns` (or the budget) goes on from where
 * it stopped, with no new user message: the stored conversation up to the turn's user message, the
 * turn's messages as kept, then the model's next call, with a fresh count of model calls.
 */
export async function continueModel(
  settings: ModelSettings,
  input: ContinueTurnInput,
  io: HostAgentIO,
): Promise<HostResult> {
  const carried = input.resume.modelLoop as
    | Pick<Transcript, 'userMessageId' | 'turn' | 'hostTools'>
    | undefined;
  if (!carried || !Array.isArray(carried.turn))
    throw new AgentFailedError('This turn was not stopped by the model loop: there is nothing to continue.');
  return carryOn(
    settings,
    input,
    io,
    {
      userMessageId: carried.userMessageId,
      turn: carried.turn,
      callId: '',
      hostTools: carried.hostTools ?? [],
    },
    input.tools.backend.map((t) => t.name),
  );
}
