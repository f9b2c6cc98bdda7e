/**
 * The Vercel AI SDK adapter of `registerSDKAgent`: the SDK's `fullStream` parts become host-agent
 * events, what the SDK leaves waiting (a tool approval, a call of a tool without `execute`) becomes
 * a pending request, and its answer goes back to the SDK as the next call's messages. docs/models.md
 * has the table. Only types come from `ai`: this module runs the team's own copy of the SDK through
 * the agent (or `streamText` result) it registered, and is loaded on the first turn.
 */

import type { ModelMessage, TextStreamPart, ToolContent, ToolSet, UserContent } from 'ai';
import type {
  Attachment,
  ContentPart,
  ContinueTurnInput,
  HistoryMessage,
  HostAgentInput,
  HostAgentIO,
  HostEvent,
  HostResult,
  PendingAction,
  ResolveActionInput,
  StopReason,
  Usage,
} from '../../contract/index.ts';
import { jsonSchemaProblem, renderHostContext, screenshotParts } from '../../contract/index.ts';
import { AgentFailedError } from '../../errors/index.ts';
import { budgetSpent, budgetStop } from '../../models/budget.ts';
import { modelName, redactEndpointText } from '../../models/redact.ts';
import { type ChatSpan, openChatSpan, openToolSpan, type ToolSpan } from '../../models/spans.ts';
import { budgetGuard } from './budget.ts';
import type { SDKAgentCall, SDKAgentDefinition, SDKStreamResult } from './types.ts';

type Part = TextStreamPart<ToolSet>;

/** A request the SDK left waiting, before it is asked. */
interface Waiting {
  id: string;
  type: 'tool_approval' | 'host_tool' | 'client_tool';
  toolName: string;
  args: unknown;
  toolCallId: string;
  argsSchema?: Record<string, unknown>;
  /** An approval of a tool remembered for the session: answered at once, never asked. */
  remembered?: true;
}

/**
 * What a request of an SDK agent carries so that its answer can continue the turn: the user message
 * the turn answers, the SDK's messages of the turn so far, the answers given, the requests still to ask.
 */
interface Carried {
  userMessageId: string;
  messages: ModelMessage[];
  answers: ToolContent;
  /** Requests still to ask one at a time: only in a request asked before every request of a step was asked together. */
  queue: Waiting[];
  /**
   * Which step asked it (`<runId>.<place in the turn>`): every request of one step carries the same,
   * and the SDK goes on once the last of them is answered, with all their answers.
   */
  pause?: string;
}

/** A pending request of an SDK agent (the field `aiSdk` is the adapter's). */
type SDKAction = PendingAction & { toolCallId?: string; aiSdk?: Carried };

/** The AI SDK's mark of a schema object (`jsonSchema()`), which `Symbol.for` gives without loading the SDK. */
const SCHEMA = Symbol.for('vercel.ai.schema');

/** `invoke` of an SDK agent: the conversation in, the stream mapped, what it waits on asked. */
export async function invokeSDK(
  definition: SDKAgentDefinition,
  input: HostAgentInput,
  io: HostAgentIO,
): Promise<HostResult> {
  const userMessageId = input.history.at(-1)?.id ?? '';
  const messages = await conversation(input.history, io);
  return run(definition, input, io, { userMessageId, messages: [], answers: [], queue: [] }, messages);
}

/** `resolveAction` of an SDK agent: the answer recorded; once the step's requests are all answered, the SDK continues. */
export async function resolveSDK(
  definition: SDKAgentDefinition,
  input: ResolveActionInput,
  io: HostAgentIO,
): Promise<HostResult> {
  const action = input.action as SDKAction;
  const carried = action.aiSdk;
  if (!carried) throw new AgentFailedError('This request was not asked by the AI SDK adapter.');
  // The SDK wants every answer of a step at once: while another request of the step is open, the turn waits on.
  const sameStep = (asked: PendingAction) =>
    carried.pause !== undefined && (asked as SDKAction).aiSdk?.pause === carried.pause;
  if (input.pendingActions.some(sameStep)) return { pendingActions: input.pendingActions };
  const messages = structuredClone(carried.messages);
  const earlier = input.answeredBefore
    .filter((before) => sameStep(before.action))
    .map((before) =>
      answerOf(
        before.action as SDKAction,
        before.status === 'resolved' ? before.resolution : WITHDRAWN,
        messages,
      ),
    );
  const answer = answerOf(action, input.resolution, messages);
  const answers = [...carried.answers, ...earlier, answer];
  const [next, ...queue] = carried.queue;
  if (next) {
    // The SDK wants every answer of a step at once: the step's next request is asked now.
    if (next.type === 'host_tool')
      io.emit({ type: 'tool_use', id: next.id, name: next.toolName, args: next.args });
    return { pendingActions: [asked(next, { ...carried, messages, answers, queue })] };
  }
  const through = input.history.findIndex((m) => m.id === carried.userMessageId);
  const before = await conversation(through < 0 ? [] : input.history.slice(0, through + 1), io);
  const turn: ModelMessage[] = [...messages, { role: 'tool', content: answers }];
  // The host contract: a host action's result is followed by the current host context and the
  // continuation's attachments. An approval's answer must stay the last message, for the SDK.
  const approvals = answers.some((a) => a.type === 'tool-approval-response');
  if (!approvals && action.type === 'host_tool') {
    const context = input.hostContext
      ? [{ type: 'text' as const, text: renderHostContext(input.hostContext) }]
      : [];
    const content = [...context, ...sdkParts(await io.parts())];
    if (content.length > 0) turn.push({ role: 'user', content });
  }
  // Steering sent while the turn waited joins it before the SDK goes on (after an approval's answer,
  // which the SDK reads only as the last message, it joins at the SDK's next step instead).
  if (!approvals) turn.push(...(await steeringMessages(io)));
  return run(
    definition,
    input,
    io,
    { userMessageId: carried.userMessageId, messages: turn, answers: [], queue: [] },
    [...before, ...turn],
  );
}

/**
 * Calls of the SDK, from `messages` on, until it ends or waits on the host, a person or the page;
 * `carried.messages` are the turn's, kept for a later answer. A call of `look_at_screen` (offered to
 * a `stream` agent when the turn has a screenshot) is answered here with the screenshots as image
 * content, and the SDK is called again; the turn keeps no image bytes for a later answer.
 */
async function run(
  definition: SDKAgentDefinition,
  input: SDKAgentCall['input'] & { tools?: HostAgentInput['tools'] },
  io: HostAgentIO,
  carried: Carried,
  messages: ModelMessage[],
): Promise<HostResult> {
  const agent = typeof definition.agent === 'function' ? await definition.agent() : definition.agent;
  const hostTools = input.tools?.host ?? [];
  const hostNames = new Set(hostTools.map((t) => t.name));
  const screens = agent ? [] : await io.lookAtScreen();
  const looks = screens.length > 0 && !hostNames.has(LOOK_AT_SCREEN);
  for (;;) {
    // The turn's budget, checked before each call of the SDK and (through onStepStart) each step.
    if (await budgetSpent(io)) return stoppedAt(carried, [], 'budget_reached');
    const budget = budgetGuard(io);
    const steering = await steeringBetweenSteps(io);
    let result: SDKStreamResult;
    try {
      result = agent
        ? await agent.stream({
            messages: messages as never[],
            abortSignal: budget.signal,
            onStepStart: budget.onStepStart,
            ...(steering.options as Record<never, never>),
          })
        : await definition.stream!({
            messages: messages as never[],
            tools: Object.fromEntries([
              ...hostTools.map((t) => [t.name, clientTool(t.description, t.parameters)]),
              ...(looks
                ? [[LOOK_AT_SCREEN, clientTool(LOOK_DESCRIPTION, { type: 'object', properties: {} })]]
                : []),
            ]),
            abortSignal: budget.signal,
            onStepStart: budget.onStepStart,
            steering: steering.options as Record<never, never>,
            input: {
              conversationId: input.conversationId,
              runId: input.runId,
              hostContext: input.hostContext,
              context: input.context,
              metadata: input.metadata,
            },
          });
    } catch (error) {
      if (budget.reached) return budgetStop();
      if (io.signal.aborted) return { status: 'cancelled' };
      throw failed(error);
    }
    const stream = result.stream ?? result.fullStream;
    if (!stream) throw new AgentFailedError('The AI SDK agent returned no stream (stream or fullStream).');
    let mapped: Mapped;
    try {
      mapped = await mapStream(budget.parts(stream as AsyncIterable<Part>), io, hostNames, {
        capture: definition.telemetry?.captureContent === true,
        input: () => withoutBytes(messages),
      });
    } catch (error) {
      if (budget.reached) return budgetStop();
      if (io.signal.aborted) return { status: 'cancelled' };
      throw failed(error);
    }
    if (budget.reached) return budgetStopAt(carried, result, steering.into);
    if (mapped.aborted || io.signal.aborted) return { status: 'cancelled' };
    if (mapped.waiting.length === 0) {
      const stopReason = stopReasonOf(mapped.finishReason);
      return stopReason === 'max_turns'
        ? stoppedAt(carried, steering.into(await stepsOf(result)), 'max_turns')
        : { stopReason };
    }
    const steps = steering.into(await stepsOf(result));
    const looked = mapped.waiting.filter((w) => looks && w.toolName === LOOK_AT_SCREEN);
    // A remembered tool's approval is answered here: approved, the SDK runs it.
    const { answers: remembered, waiting } = answerRemembered(
      mapped.waiting.filter((w) => !looked.includes(w)),
    );
    if (waiting.length === 0) {
      // Only looks and remembered tools: answered here, and the SDK goes on at once.
      if (looked.length === 0 && !continuesRemembered(io))
        return { status: 'incomplete', stopReason: 'max_turns' };
      const shown: ModelMessage = {
        role: 'tool',
        content: [...looked.map((w) => lookResult(io, w, screens)), ...remembered],
      };
      carried = { ...carried, messages: [...carried.messages, ...steps, shown] };
      messages = [...messages, ...steps, shown];
      continue;
    }
    const tools = (agent ? agent.tools : (definition as { tools?: Record<string, unknown> }).tools) ?? {};
    for (const w of waiting) {
      if (w.type !== 'tool_approval') continue;
      const schema = await jsonSchemaOf(
        (tools[w.toolName] as { inputSchema?: unknown } | undefined)?.inputSchema,
      );
      if (schema) w.argsSchema = schema;
    }
    // Every request of the step is asked together: approvals and page tools at once, host actions one
    // at a time (the first pending, the rest queued); the SDK goes on once all are answered. A look
    // of the same step is answered now, without the screenshots (they are not kept for the answer).
    const turn = withoutScreens([...carried.messages, ...steps]);
    const pause = `${input.runId}.${turn.length}`;
    const answers: ToolContent = [
      ...carried.answers,
      ...looked.map((w) => lookResult(io, w, [])),
      ...remembered,
    ];
    for (const w of waiting)
      if (w.type === 'host_tool') io.emit({ type: 'tool_use', id: w.id, name: w.toolName, args: w.args });
    return {
      pendingActions: waiting.map((w) => asked(w, { ...carried, messages: turn, answers, queue: [], pause })),
    };
  }
}

/** The tool a `stream` agent is offered when the turn has a screenshot (the host contract's `look_at_screen`). */
const LOOK_AT_SCREEN = 'look_at_screen';
const LOOK_DESCRIPTION =
  "Look at the user's screen: the screenshots the app sent with this turn, returned as images.";

/** A `look_at_screen` call's result: the screenshots as image content, or (none left) a text that says so. */
function lookResult(
  io: Pick<HostAgentIO, 'emit'>,
  call: Waiting,
  screens: Attachment[],
): ToolContent[number] {
  const images = screenshotParts(screens);
  io.emit({
    type: 'tool_result',
    id: call.toolCallId,
    name: LOOK_AT_SCREEN,
    result: { screenshots: images.length },
  });
  const output =
    images.length === 0
      ? { type: 'error-text' as const, value: 'The screenshots are no longer available.' }
      : {
          type: 'content' as const,
          value: images.map((image) =>
            'data' in image
              ? {
                  type: 'file' as const,
                  data: { type: 'data' as const, data: image.data },
                  mediaType: image.mediaType,
                }
              : {
                  type: 'file' as const,
                  data: { type: 'url' as const, url: new URL(image.url) },
                  mediaType: image.mediaType ?? 'image',
                },
          ),
        };
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: LOOK_AT_SCREEN,
    output,
  } as ToolContent[number];
}

/** The turn's messages as kept for a later answer: a look's screenshots replaced by a text (never stored). */
function withoutScreens(messages: ModelMessage[]): ModelMessage[] {
  return messages.map((message) =>
    message.role !== 'tool'
      ? message
      : {
          ...message,
          content: message.content.map((part) =>
            part.type === 'tool-result' && part.toolName === LOOK_AT_SCREEN && part.output.type === 'content'
              ? {
                  ...part,
                  output: { type: 'text' as const, value: '[The screenshots shown here are not kept.]' },
                }
              : part,
          ),
        },
  );
}

/** Steering messages as the SDK's user messages: each its frozen prompt and its attachments. */
async function steeringMessages(io: HostAgentIO): Promise<ModelMessage[]> {
  const taken = await io.takeSteering();
  return Promise.all(
    taken.map(
      async (m): Promise<ModelMessage> => ({
        role: 'user',
        content: [{ type: 'text', text: m.prompt }, ...sdkParts(await io.parts(m.id))],
      }),
    ),
  );
}

/**
 * Steering between the SDK's own steps, through the SDK's hook (`experimental_steering`, with a
 * steering object of the team's own copy of `ai`): after each step whose calls all have their results
 * (or that answered), the steering messages sent meanwhile are handed to the SDK, which adds them
 * before its next step (continuing for one if the model had answered). A step that stopped on a call
 * waiting for the host, a person or the page takes none: its messages join once that is answered.
 * `into` puts the messages taken in the step messages the response reports, at the place they joined,
 * so a later answer of the turn still has them.
 */
async function steeringBetweenSteps(io: HostAgentIO) {
  const { experimental_createSteering: createSteering } = (await import('ai')) as {
    experimental_createSteering?: () => { steer(message: never): Promise<unknown> };
  };
  // A bundle built without `ai` (it has no SDK agent to run) has nothing to steer.
  if (typeof createSteering !== 'function') return { options: {}, into: (steps: ModelMessage[]) => steps };
  const steering = createSteering();
  /** Steering messages, each with the number of step messages before it. */
  const joined: { at: number; messages: ModelMessage[] }[] = [];
  let count = 0;
  return {
    options: {
      experimental_steering: steering,
      onStepEnd: async (step: { response: { messages: ModelMessage[] } }) => {
        count += step.response.messages.length;
        const last = step.response.messages.at(-1);
        const waits =
          last?.role === 'assistant' &&
          Array.isArray(last.content) &&
          last.content.some((part) => part.type === 'tool-call' || part.type === 'tool-approval-request');
        if (waits) return;
        const taken = await steeringMessages(io);
        if (taken.length === 0) return;
        joined.push({ at: count, messages: taken });
        for (const message of taken) void steering.steer(message as never);
      },
    },
    into: (steps: ModelMessage[]) => {
      const out = [...steps];
      for (const { at, messages } of [...joined].reverse()) out.splice(at, 0, ...messages);
      return out;
    },
  };
}

/**
 * The approvals of remembered tools (`io.rememberedTools`), answered: approved, with the arguments the
 * model wrote (the SDK checks an approved call against the tool's schema again before it runs it). The
 * other requests still wait, in order.
 */
function answerRemembered(all: Waiting[]): { answers: ToolContent; waiting: Waiting[] } {
  const answers: ToolContent = all
    .filter((w) => w.remembered)
    .map((w) => ({ type: 'tool-approval-response', approvalId: w.id, approved: true }));
  return { answers, waiting: all.filter((w) => !w.remembered) };
}

/** How many times a call of the adapter may call the SDK again on remembered approvals alone. */
const MAX_REMEMBERED_CONTINUATIONS = 10;
const continuations = new WeakMap<HostAgentIO, number>();

/** Counts one more SDK call on remembered approvals alone: false past the bound (the turn stops). */
function continuesRemembered(io: HostAgentIO): boolean {
  const count = (continuations.get(io) ?? 0) + 1;
  continuations.set(io, count);
  return count <= MAX_REMEMBERED_CONTINUATIONS;
}

/** What one stream said, once read: the events are emitted as its parts come. */
interface Mapped {
  waiting: Waiting[];
  finishReason?: string;
  aborted: boolean;
}

/**
 * Reads the SDK's full stream, emitting each part that has a host-agent event (docs/models.md has
 * the table) and dropping the rest. A part `error` fails the turn with the model's message.
 */
export async function mapStream(
  stream: AsyncIterable<Part>,
  io: Pick<HostAgentIO, 'emit'> & Partial<Pick<HostAgentIO, 'rememberedTools'>>,
  hostNames: ReadonlySet<string>,
  telemetry: StreamTelemetry = { capture: false },
): Promise<Mapped> {
  const spans = new StepSpans(telemetry);
  try {
    return await readStream(stream, io, hostNames, spans);
  } catch (error) {
    spans.failed(error);
    throw error;
  } finally {
    spans.end();
  }
}

/** The SDK's messages as captured on a span: an image's or a file's bytes left out. */
function withoutBytes(messages: ModelMessage[]): unknown {
  return JSON.parse(
    JSON.stringify(messages, (key, value) =>
      (key === 'data' || key === 'image') &&
      (value instanceof Uint8Array ||
        Array.isArray(value) ||
        (typeof value === 'string' && value.length > 256))
        ? '[bytes not captured]'
        : value,
    ),
  );
}

/** What the spans of one SDK call carry: content capture, and the messages the SDK was given. */
export interface StreamTelemetry {
  capture: boolean;
  /** The messages given to the SDK: the input of its first step, captured. */
  input?: () => unknown;
}

/**
 * The spans of the SDK's steps, as its stream tells them: a `chat` span from each `start-step` to its
 * `finish-step` (the model the response names, its usage and finish reason), and an `execute_tool`
 * span from a call to its result (a tool the SDK runs), or to its approval request or the stream's end
 * (a call that waits). The SDK's own steps are what is seen: a model call's retries inside a step are
 * not told apart, and only the first step's input is known (the SDK builds the later ones itself).
 */
class StepSpans {
  private step: Promise<ChatSpan> | undefined;
  private steps = 0;
  private text = '';
  private readonly calls: { id: string; name: string; arguments: unknown }[] = [];
  private readonly tools = new Map<string, Promise<ToolSpan>>();

  constructor(private readonly telemetry: StreamTelemetry) {}

  start(): void {
    this.endStep();
    const first = this.steps++ === 0;
    this.text = '';
    this.calls.length = 0;
    this.step = openChatSpan({
      capture: this.telemetry.capture,
      ...(first && this.telemetry.input && { input: this.telemetry.input }),
    });
  }

  async token(): Promise<void> {
    (await this.step)?.firstToken();
  }

  async textDelta(text: string): Promise<void> {
    if (this.telemetry.capture) this.text += text;
    await this.token();
  }

  async call(id: string, name: string, input: unknown): Promise<void> {
    if (this.telemetry.capture) this.calls.push({ id, name, arguments: input });
    this.tools.set(id, openToolSpan({ name, callId: id, capture: this.telemetry.capture, args: input }));
  }

  async tool(
    id: string,
    outcome: 'succeeded' | 'failed' | 'paused' | 'host',
    result?: unknown,
  ): Promise<void> {
    const span = await this.tools.get(id);
    this.tools.delete(id);
    if (!span) return;
    span.outcome(outcome, outcome === 'succeeded' ? { result } : {});
    span.span?.end();
  }

  async finish(part: Part & { type: 'finish-step' }): Promise<void> {
    const step = await this.step;
    this.step = undefined;
    if (!step) return;
    const provider = Object.keys(part.providerMetadata ?? {})[0];
    if (provider && /^[A-Za-z0-9_.-]{1,64}$/.test(provider))
      step.span?.setAttribute('gen_ai.provider.name', provider);
    const model = modelName(part.response?.modelId);
    step.answered({
      ...(model && { responseModel: model }),
      ...(usageOf(part.usage, model) && { usage: usageOf(part.usage, model) }),
      finishReasons: [String(part.finishReason).replace(/-/g, '_')],
      output: () => [
        {
          role: 'assistant',
          parts: [
            ...(this.text !== '' ? [{ type: 'text', content: this.text }] : []),
            ...this.calls.map((c) => ({ type: 'tool_call', ...c })),
          ],
          finish_reason: part.finishReason,
        },
      ],
    });
    step.span?.end();
  }

  failed(error: unknown): void {
    void this.step?.then((step) => step.failed('_OTHER', redactEndpointText(messageOf(error))));
  }

  private endStep(): void {
    void this.step?.then((step) => step.span?.end());
    this.step = undefined;
  }

  /** The stream's end: a step left open ends, calls still open wait (on the host, a person or the page). */
  end(): void {
    this.endStep();
    for (const [id, span] of this.tools)
      void span.then((s) => {
        s.outcome(this.hosts.has(id) ? 'host' : 'paused');
        s.span?.end();
      });
    this.tools.clear();
  }

  /** The calls of host actions: they wait on the host. */
  readonly hosts = new Set<string>();
}

/** Reads the stream (see {@link mapStream}). */
async function readStream(
  stream: AsyncIterable<Part>,
  io: Pick<HostAgentIO, 'emit'> & Partial<Pick<HostAgentIO, 'rememberedTools'>>,
  hostNames: ReadonlySet<string>,
  spans: StepSpans,
): Promise<Mapped> {
  const emit = (event: HostEvent) => io.emit(event);
  const remembered = new Set(io.rememberedTools ?? []);
  /**
   * A call of a remembered tool is announced with the part after it: when that is the call's
   * approval request, the call runs without asking, and its `tool_use` says `remembered: true`.
   */
  let held: (HostEvent & { type: 'tool_use' }) | undefined;
  /** Calls with no outcome yet: those left at the end wait on the host or the page. */
  const open = new Map<string, { toolName: string; input: unknown }>();
  const waiting: Waiting[] = [];
  let finishReason: string | undefined;
  let aborted = false;
  for await (const part of stream) {
    let runsRemembered = false;
    if (held) {
      runsRemembered =
        part.type === 'tool-approval-request' && !part.isAutomatic && part.toolCall.toolCallId === held.id;
      emit(runsRemembered ? { ...held, remembered: true } : held);
      held = undefined;
    }
    switch (part.type) {
      case 'start-step':
        spans.start();
        break;
      case 'text-delta':
        if (part.text) {
          emit({ type: 'text', text: part.text });
          await spans.textDelta(part.text);
        }
        break;
      case 'tool-call':
        if (part.providerExecuted) break;
        await spans.token();
        open.set(part.toolCallId, { toolName: part.toolName, input: part.input });
        if (hostNames.has(part.toolName)) spans.hosts.add(part.toolCallId);
        await spans.call(part.toolCallId, part.toolName, part.input);
        // A host action is announced when it is asked, with the step's other requests.
        if (!hostNames.has(part.toolName)) {
          const use = {
            type: 'tool_use' as const,
            id: part.toolCallId,
            name: part.toolName,
            args: part.input ?? {},
          };
          if (remembered.has(part.toolName)) held = use;
          else emit(use);
        }
        break;
      case 'tool-result':
        if (part.providerExecuted) break;
        open.delete(part.toolCallId);
        emit({ type: 'tool_result', id: part.toolCallId, name: part.toolName, result: part.output ?? null });
        await spans.tool(part.toolCallId, 'succeeded', part.output ?? null);
        break;
      case 'tool-error':
        open.delete(part.toolCallId);
        emit({ type: 'tool_result', id: part.toolCallId, name: part.toolName, error: messageOf(part.error) });
        await spans.tool(part.toolCallId, 'failed');
        break;
      case 'tool-output-denied':
        open.delete(part.toolCallId);
        emit({
          type: 'tool_result',
          id: part.toolCallId,
          name: part.toolName,
          error: 'The call was denied.',
        });
        await spans.tool(part.toolCallId, 'failed');
        break;
      case 'tool-approval-request': {
        if (part.isAutomatic || part.toolCall.providerExecuted) break;
        open.delete(part.toolCall.toolCallId);
        await spans.tool(part.toolCall.toolCallId, 'paused');
        waiting.push({
          id: part.approvalId,
          type: 'tool_approval',
          toolName: part.toolCall.toolName,
          args: part.toolCall.input ?? {},
          toolCallId: part.toolCall.toolCallId,
          ...(runsRemembered && { remembered: true as const }),
        });
        break;
      }
      case 'finish-step': {
        const usage = usageOf(part.usage, part.response?.modelId);
        if (usage) emit({ type: 'usage', usage });
        await spans.finish(part);
        break;
      }
      case 'finish':
        finishReason = part.finishReason;
        break;
      case 'abort':
        aborted = true;
        break;
      case 'error':
        throw failed(part.error);
      default:
        // reasoning, sources, files, tool input deltas, step and stream starts, raw and custom parts:
        // the host-agent events have no place for them.
        break;
    }
  }
  if (held) emit(held);
  // Calls of tools without `execute` that got no result: the SDK stopped on them.
  for (const [toolCallId, call] of open) {
    waiting.push({
      id: toolCallId,
      type: hostNames.has(call.toolName) ? 'host_tool' : 'client_tool',
      toolName: call.toolName,
      args: call.input ?? {},
      toolCallId,
    });
  }
  return { waiting, aborted, ...(finishReason !== undefined && { finishReason }) };
}

/** The usage of one model call, in Switchboard's terms; undefined when the provider reported none. */
export function usageOf(
  usage: Partial<Pick<Part & { type: 'finish-step' }, 'usage'>['usage']> | undefined,
  model: string | undefined,
): Usage | undefined {
  if (!usage) return undefined;
  const cached =
    usage.inputTokenDetails?.cacheReadTokens ?? (usage as { cachedInputTokens?: number }).cachedInputTokens;
  const out: Usage = {
    ...(usage.inputTokens !== undefined && { inputTokens: usage.inputTokens }),
    ...(usage.outputTokens !== undefined && { outputTokens: usage.outputTokens }),
    ...(usage.totalTokens !== undefined && { totalTokens: usage.totalTokens }),
    ...(cached !== undefined && { cachedInputTokens: cached }),
  };
  if (Object.keys(out).length === 0) return undefined;
  return model ? { ...out, model } : out;
}

/** The SDK's finish reason of a turn that asks nothing, as a stop reason. */
export function stopReasonOf(finishReason: string | undefined): StopReason {
  switch (finishReason) {
    // The loop stopped with tool calls still to follow up: its stop condition (a step count) was met.
    case 'tool-calls':
      return 'max_turns';
    case 'length':
      return 'limit';
    case 'error':
      return 'error';
    default:
      return 'end_turn';
  }
}

/** What a request of a step that ended without an answer (withdrawn, superseded) reads as: denied, or failed. */
const WITHDRAWN = { decision: 'deny', outcome: 'failed', error: 'Not answered: the request was withdrawn.' };

/** The request a waiting call becomes, carrying what its answer needs. */
function asked(waiting: Waiting, carried: Carried): SDKAction {
  const { id, type, toolName, args, toolCallId, argsSchema } = waiting;
  const title = type === 'tool_approval' ? `Allow ${toolName}?` : undefined;
  return {
    id,
    type,
    toolName,
    args,
    toolCallId,
    ...(title && { title }),
    ...(argsSchema && { argsSchema }),
    aiSdk: carried,
  };
}

/**
 * An answer as the SDK reads it in the next call's tool message. An approval approved with edited
 * arguments changes the call itself in the turn's messages: the SDK checks approved calls against
 * the tool's schema again before it runs them.
 */
function answerOf(
  action: SDKAction,
  resolution: Record<string, unknown>,
  messages: ModelMessage[],
): ToolContent[number] {
  const toolCallId = action.toolCallId ?? action.id;
  const toolName = action.toolName ?? '';
  if (action.type === 'tool_approval') {
    const approved = resolution.decision === 'approve';
    if (approved && resolution.approvedArgs !== undefined)
      editCall(messages, toolCallId, resolution.approvedArgs);
    const reason = typeof resolution.comment === 'string' ? resolution.comment : undefined;
    return { type: 'tool-approval-response', approvalId: action.id, approved, ...(reason && { reason }) };
  }
  const failedWith =
    action.type === 'host_tool'
      ? resolution.outcome === 'failed'
        ? (resolution.error ?? 'failed')
        : undefined
      : resolution.error;
  const output =
    failedWith !== undefined
      ? {
          type: 'error-text' as const,
          value: typeof failedWith === 'string' ? failedWith : JSON.stringify(failedWith),
        }
      : {
          type: 'json' as const,
          value: ((action.type === 'host_tool' ? resolution.result : resolution.output) ?? null) as never,
        };
  return { type: 'tool-result', toolCallId, toolName, output };
}

function editCall(messages: ModelMessage[], toolCallId: string, args: unknown): void {
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && part.toolCallId === toolCallId) part.input = args;
      if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId)
        delete part.inputSchemaInput;
    }
  }
}

/** The stored conversation as the SDK's messages: a user message's prompt and attachments, an answer's text. */
async function conversation(
  history: HistoryMessage[],
  io: Pick<HostAgentIO, 'parts'>,
): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [];
  for (const m of history) {
    if (m.role === 'user') {
      const content: UserContent = [{ type: 'text', text: m.prompt }, ...sdkParts(await io.parts(m.id))];
      messages.push({ role: 'user', content });
    } else if (m.content) {
      messages.push({ role: 'assistant', content: m.content });
    }
  }
  return messages;
}

/** Reference attachments as the SDK's content parts. */
function sdkParts(parts: ContentPart[]): Exclude<UserContent, string> {
  return parts.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const data = 'data' in part ? part.data : new URL(part.url);
    if (part.type === 'image')
      return { type: 'image', image: data, ...(part.mediaType && { mediaType: part.mediaType }) };
    return {
      type: 'file',
      data,
      mediaType: part.mediaType ?? 'application/octet-stream',
      ...(part.name && { filename: part.name }),
    };
  });
}

/** A host action as an AI SDK tool without `execute`: the SDK stops on its call. */
function clientTool(description: string | undefined, parameters: Record<string, unknown>) {
  return {
    ...(description && { description }),
    inputSchema: { [SCHEMA]: true, _type: undefined, jsonSchema: parameters, validate: undefined },
  };
}

/** The JSON Schema of an AI SDK tool's input schema (zod, Standard Schema, `jsonSchema()`), when it has one. */
export async function jsonSchemaOf(schema: unknown): Promise<Record<string, unknown> | undefined> {
  try {
    const standard = (
      schema as { '~standard'?: { jsonSchema?: { input?: (o: object) => unknown } } } | null
    )?.['~standard']?.jsonSchema?.input;
    const resolved = typeof schema === 'function' ? (schema as () => unknown)() : schema;
    const json = standard
      ? standard({ target: 'draft-07' })
      : resolved && typeof resolved === 'object' && SCHEMA in resolved
        ? await (resolved as unknown as { jsonSchema: unknown }).jsonSchema
        : undefined;
    if (!json || typeof json !== 'object' || jsonSchemaProblem(json as Record<string, unknown>))
      return undefined;
    return json as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error);
}

/**
 * A model or SDK failure as the turn's error: its message, said as the SDK's, with anything that looks
 * like a credential removed, as a model endpoint's error is (a provider may echo part of its key).
 */
function failed(error: unknown): AgentFailedError {
  if (error instanceof AgentFailedError) return error;
  const status = (error as { statusCode?: unknown } | null | undefined)?.statusCode;
  const where = typeof status === 'number' ? ` (HTTP ${status})` : '';
  return new AgentFailedError(`The AI SDK agent failed${where}: ${redactEndpointText(messageOf(error))}`);
}

/** The SDK's messages of one call (its steps), as plain JSON. */
async function stepsOf(result: SDKStreamResult): Promise<ModelMessage[]> {
  const response = result.responseMessages ?? result.response?.then((r) => r.messages);
  return JSON.parse(JSON.stringify((await response) ?? [])) as ModelMessage[];
}

/**
 * A turn the SDK's own stop condition ended with tool calls still to follow up (a step count,
 * `max_turns`), or the budget stopped (`budget_reached`): `incomplete`, with what `continueSDK` needs
 * to go on: the user message it answers and the turn's SDK messages, screenshots and inline images
 * and files left out (the resume state is stored).
 */
function stoppedAt(
  carried: Carried,
  steps: ModelMessage[],
  stopReason: 'max_turns' | 'budget_reached',
): HostResult {
  const messages = withoutScreens([...carried.messages, ...steps]).map(withoutInlineBytes);
  return {
    status: 'incomplete',
    stopReason,
    resume: { aiSdk: { userMessageId: carried.userMessageId, messages } },
  };
}

/**
 * A call the budget stopped between its steps: carried on from the steps it finished, when the SDK
 * still reports them; else the turn ends `budget_reached` without a way to carry it on (continuing
 * from before the call could run its tools again).
 */
async function budgetStopAt(
  carried: Carried,
  result: SDKStreamResult,
  into: (steps: ModelMessage[]) => ModelMessage[],
): Promise<HostResult> {
  try {
    return stoppedAt(carried, into(await stepsOf(result)), 'budget_reached');
  } catch {
    return budgetStop();
  }
}

/** A user message without inline image or file bytes (a URL stays): a note in their place. */
function withoutInlineBytes(message: ModelMessage): ModelMessage {
  if (message.role !== 'user' || typeof message.content === 'string') return message;
  const inline = (part: Exclude<UserContent, string>[number]) =>
    (part.type === 'image' && !(part.image instanceof URL) && !String(part.image).startsWith('http')) ||
    (part.type === 'file' && !(part.data instanceof URL) && !String(part.data).startsWith('http'));
  if (!message.content.some(inline)) return message;
  return {
    ...message,
    content: message.content.map((part) =>
      inline(part) ? { type: 'text' as const, text: '[An attachment shown here is not kept.]' } : part,
    ),
  };
}

/**
 * `continueTurn` of an SDK agent: the turn the SDK's stop condition ended goes on from its messages,
 * with no new user message: the stored conversation up to the turn's user message, then the turn's
 * SDK messages as kept. The SDK's own `stopWhen` counts its steps afresh.
 */
export async function continueSDK(
  definition: SDKAgentDefinition,
  input: ContinueTurnInput,
  io: HostAgentIO,
): Promise<HostResult> {
  const carried = input.resume.aiSdk as { userMessageId: string; messages: ModelMessage[] } | undefined;
  if (!carried || !Array.isArray(carried.messages))
    throw new AgentFailedError(
      'This turn was not stopped by the AI SDK adapter: there is nothing to continue.',
    );
  const through = input.history.findIndex((m) => m.id === carried.userMessageId);
  const before = await conversation(through < 0 ? [] : input.history.slice(0, through + 1), io);
  const turn = structuredClone(carried.messages);
  return run(
    definition,
    input,
    io,
    { userMessageId: carried.userMessageId, messages: turn, answers: [], queue: [] },
    [...before, ...turn],
  );
}
