import type { HostAgentDefinition, HostAgentInput, HostAgentIO, HostResult } from '../lib/index.ts';

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

/** The refund the demo asks approval for: its arguments' schema, which the page's edit form is checked against. */
export const REFUND_SCHEMA = {
  type: 'object',
  properties: {
    order: { type: 'integer', minimum: 1 },
    amount: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
  },
  required: ['order', 'amount'],
  additionalProperties: false,
};

const PLANS = ['Starter', 'Team', 'Enterprise'];

/** The story the demo tells slowly, so that there is time to cancel it or reload the page. */
const STORY = [
  'Once upon a time, ',
  'a switchboard operator ',
  'named Ada ',
  'connected calls ',
  'across a sleepy town. ',
  'Every evening ',
  'she listened for the click ',
  'of a new line, ',
  'wrote each caller’s name ',
  'in a ledger, ',
  'and never dropped a word. ',
  'One stormy night ',
  'the lines went dark, ',
  'but Ada kept her ledger, ',
  'and when the power came back ',
  'she rang every caller ',
  'and told them ',
  'exactly where ',
  'their conversation ',
  'had stopped. ',
  'The town called it ',
  'the night nothing was lost.',
];

const number = (text: string) => Number(/#?(\d+)/.exec(text)?.[1]);

/** What a message asks the demo for, from its words (the page suggests one prompt per feature). */
type Intent =
  | { kind: 'refund'; order: number }
  | { kind: 'plan' }
  | { kind: 'time' }
  | { kind: 'story' }
  | { kind: 'files' }
  | { kind: 'action'; name: string; args: Record<string, unknown>; say: string }
  | { kind: 'stats' };

function intentOf(input: HostAgentInput): Intent {
  const text = input.message.toLowerCase();
  const declared = new Set((input.hostContext?.actions ?? []).map((a) => a.name));
  if (input.files.length > 0) return { kind: 'files' };
  if (/\brefund\b/.test(text)) return { kind: 'refund', order: number(text) || 1042 };
  if (/\bplan\b/.test(text)) return { kind: 'plan' };
  if (/\b(time|clock)\b/.test(text)) return { kind: 'time' };
  if (/\bstory\b/.test(text)) return { kind: 'story' };
  const closeMatch = /\bclose (?:issue )?#?(\d+)/.exec(text);
  if (closeMatch && declared.has('close_issue'))
    return {
      kind: 'action',
      name: 'close_issue',
      args: { number: Number(closeMatch[1]) },
      say: `Closing issue #${closeMatch[1]} on your page.`,
    };
  const status = /\b(open|closed|all)\b/.exec(text)?.[1];
  if (status && /\b(show|only|filter|list)\b/.test(text) && declared.has('set_filter'))
    return {
      kind: 'action',
      name: 'set_filter',
      args: { status },
      say: `Switching your list to ${status} issues.`,
    };
  return { kind: 'stats' };
}

/** Streams `chunks` one by one, stopping early when the turn is stopped; returns whether it ran to the end. */
async function stream(chunks: string[], { emit, signal }: HostAgentIO, delay: number) {
  for (const text of chunks) {
    if (signal.aborted) return false;
    emit({ type: 'text', text });
    await pause(delay, signal);
  }
  return !signal.aborted;
}

/** The default answer: one backend tool call (tool_use, tool_result), then a reply streamed in pieces. */
async function statsReply(input: HostAgentInput, io: HostAgentIO, delay: number): Promise<HostResult> {
  const { message, history } = input;
  io.emit({ type: 'tool_use', id: 'stats_1', name: 'text_stats', args: { text: message } });
  const stats = textStats(message);
  await pause(delay, io.signal);
  io.emit({ type: 'tool_result', id: 'stats_1', name: 'text_stats', result: stats });
  const turn = history.filter((m) => m.role === 'user').length;
  const reply = [
    ...(input.mode === 'regenerate' ? ['Another take: '] : []),
    `You wrote ${stats.words} word${stats.words === 1 ? '' : 's'}`,
    ` (${stats.characters} characters)`,
    stats.longest ? `; the longest is "${stats.longest}". ` : '. ',
    `This is message ${turn} of our conversation, `,
    'streamed to you in pieces ',
    'by a host-backed agent.',
  ];
  const done = await stream(reply, io, delay);
  io.emit({ type: 'usage', usage: { inputTokens: stats.words, outputTokens: reply.length, model: 'demo' } });
  return done ? {} : { status: 'cancelled', stopReason: 'cancelled' };
}

/** Reads the attached files (the session's own, through `io.files`) and says what each holds. */
async function filesReply(input: HostAgentInput, io: HostAgentIO, delay: number): Promise<HostResult> {
  const lines: string[] = [];
  for (const file of input.files) {
    io.emit({ type: 'tool_use', id: `read_${file.id}`, name: 'read_file', args: { file_id: file.id } });
    const text = await io.files.text(file.id);
    io.emit({
      type: 'tool_result',
      id: `read_${file.id}`,
      name: 'read_file',
      result: { name: file.name, characters: text?.length ?? 0 },
    });
    const words = text?.trim().split(/\s+/).filter(Boolean) ?? [];
    lines.push(
      text === null
        ? `I could not read ${file.name}. `
        : `${file.name} has ${words.length} word${words.length === 1 ? '' : 's'}; it begins "${words.slice(0, 6).join(' ')}". `,
    );
  }
  const done = await stream(lines, io, delay);
  return done ? {} : { status: 'cancelled', stopReason: 'cancelled' };
}

/** How the demo answers each kind of request once it is resolved. */
function resolvedReply(
  action: { type: string; toolName?: string; args?: unknown },
  r: Record<string, unknown>,
): string {
  if (action.type === 'tool_approval') {
    if (r.decision !== 'approve')
      return `I did not refund it${r.expired ? ': nobody answered in time' : ''}.`;
    // Approved as asked (no approvedArgs), or with the arguments a person edited.
    const args = (r.approvedArgs ?? action.args ?? {}) as { order?: number; amount?: number };
    return `Refunded $${args.amount} on order ${args.order}.`;
  }
  if (action.type === 'user_question') {
    const answer = Array.isArray(r.answers) ? r.answers.join(', ') : JSON.stringify(r.answers ?? null);
    return r.expired ? 'You did not pick a plan; ask me again any time.' : `${answer} it is: a fine choice.`;
  }
  if (action.type === 'client_tool') {
    if (r.error !== undefined) return `I could not read your device's clock (${String(r.error)}).`;
    const output = (r.output ?? {}) as { time?: string; zone?: string };
    return `On your device it is ${output.time ?? 'an unknown time'}${output.zone ? ` (${output.zone})` : ''}.`;
  }
  // A host action the page performed: its result, or why it failed.
  if (r.outcome === 'failed') return `Your page could not do it: ${JSON.stringify(r.result)}.`;
  const result = (r.result ?? {}) as { shown?: number; status?: string; closed?: number };
  if (result.closed !== undefined) return `Done: issue #${result.closed} is closed.`;
  if (result.status !== undefined)
    return `Done: your page now shows ${result.shown ?? 'the'} ${result.status} issue${result.shown === 1 ? '' : 's'}.`;
  return `Done: ${JSON.stringify(r.result ?? null)}.`;
}

/**
 * Who the demo agent is, the same on the scripted host agent (`npm start`) and on the model
 * (`npm run start:model`): its id (the page shows its issue list for it), name and suggestions.
 */
export const DEMO_INFO = {
  id: 'demo',
  name: 'Demo assistant',
  description: 'Shows every feature of Switchboard: streaming, tools, approvals, questions, host actions.',
  capabilities: { streaming: true },
  // The page offers them under the conversation: one prompt for each feature.
  suggestions: [
    'Count the words in this sentence',
    'Refund order 1042',
    'Help me choose a plan',
    'What time is it here?',
    'Show only closed issues',
    'Close issue #2',
    'Tell me a long story',
  ],
};

/**
 * The demo agent, reaching every feature of the runtime from the prompts the demo page suggests:
 * a backend tool and a streamed reply (any message), an approval with arguments a person may edit
 * ("Refund order 1042"), a question ("Help me choose a plan"), a client tool ("What time is it
 * here?"), host actions that change the page ("Show only closed issues", "Close issue #2"), a long
 * answer to cancel or reload through ("Tell me a long story"), attached files read through
 * `io.files`, and regeneration ("Another take: …").
 */
export function demoAgent(
  options: { chunkDelayMs?: number; storyDelayMs?: number } = {},
): HostAgentDefinition {
  const delay = options.chunkDelayMs ?? Number(process.env.SWITCHBOARD_DEMO_DELAY_MS ?? 80);
  const storyDelay = options.storyDelayMs ?? delay * 4;
  return {
    info: DEMO_INFO,
    hitl: { timeoutMinutes: 30 },
    async invoke(input, io) {
      const intent = intentOf(input);
      switch (intent.kind) {
        case 'refund':
          io.emit({ type: 'text', text: `I can refund order ${intent.order} for $25. ` });
          return {
            content: `I can refund order ${intent.order} for $25. It needs your approval; you may change the amount (at most $100).`,
            pendingActions: [
              {
                id: `refund_${input.runId}`,
                type: 'tool_approval',
                toolName: 'issue_refund',
                title: `Refund $25 on order ${intent.order}?`,
                args: { order: intent.order, amount: 25 },
                argsSchema: REFUND_SCHEMA,
              },
            ],
          };
        case 'plan':
          return {
            content: 'Happy to help. One question first.',
            pendingActions: [
              {
                id: `plan_${input.runId}`,
                type: 'user_question',
                title: 'Choose a plan',
                questions: [
                  { question: 'Which plan fits your team?', options: PLANS.map((label) => ({ label })) },
                ],
              },
            ],
          };
        case 'time':
          return {
            content: 'Let me look at your device’s clock.',
            pendingActions: [
              {
                id: `time_${input.runId}`,
                type: 'client_tool',
                toolName: 'local_time',
                title: 'Read the local time',
              },
            ],
          };
        case 'story': {
          const done = await stream(STORY, io, storyDelay);
          return done ? {} : { status: 'cancelled', stopReason: 'cancelled' };
        }
        case 'files':
          return filesReply(input, io, delay);
        case 'action':
          io.emit({ type: 'text', text: `${intent.say} ` });
          // A tool_use of an action the host declared in host_context.actions: the turn ends waiting
          // on the host (final_response.pending_tool_call), and the host's result comes to resolveAction.
          io.emit({
            type: 'tool_use',
            id: `${intent.name}_${input.runId}`,
            name: intent.name,
            args: intent.args,
          });
          return {};
        default:
          return statsReply(input, io, delay);
      }
    },
    async resolveAction(input) {
      // Several requests of one pause are answered one at a time; this demo asks one per pause.
      if (input.pendingActions.length > 0) return { pendingActions: input.pendingActions };
      return { content: resolvedReply(input.action, input.resolution) };
    },
  };
}
