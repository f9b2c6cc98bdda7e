import type { Budget, Pricing } from './agent-pricing.ts';
import type {
  AgentSummary,
  ContentPart,
  HostAgentInfo,
  HostEvent,
  HostResult,
  PendingAction,
} from './agent-schemas.ts';
import type { Attachment } from './attachments.ts';
import type { HostContext } from './host-context.ts';

export type { HostAgentInfo };

/** Who is asking, as `resolveContext` (the authoriser) says: never taken from the host's own words. */
export interface RequestContext {
  user: { id: string } | null;
  data: Record<string, unknown>;
}

/** One message of the conversation, as an agent sees it. */
export interface HistoryMessage {
  id: string;
  role: 'user' | 'assistant';
  /** What was typed (a user message) or answered (an assistant message). */
  content: string;
  /** A user message as the model should read it: its `<host_context>` block, then the text. Never re-rendered. */
  prompt: string;
  /** Reference attachments as the host sent them, as first seen; `io.parts(id)` gives them as model content. */
  attachments: Attachment[];
  createdAt: string;
}

/** A tool the agent may call this turn. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

/** A host tool: the host performs it. `configured` ones come from settings, `request` ones from host_context.actions. */
export interface HostTool extends ToolDefinition {
  parameters: Record<string, unknown>;
  source: 'configured' | 'request' | 'reserved';
}

/** The tools offered this turn: the host's and the agent's own backend tools that the page scopes allow. */
export interface TurnTools {
  host: HostTool[];
  backend: ToolDefinition[];
}

/** A stored file handed to an agent. */
export interface HostAgentFile {
  id: string;
  name: string;
  mimeType?: string;
  size?: number;
}

/** What `invoke` receives: one user message and what surrounds it. */
export interface HostAgentInput {
  conversationId: string;
  runId: string;
  message: string;
  /** The user message as the model should read it: the rendered `<host_context>` block, then `message`. */
  prompt: string;
  /** The host context in force this turn, validated and in snake_case; null when the host sent none. */
  hostContext: HostContext | null;
  /**
   * Reference attachments of this message as the host sent them (message-level first, duplicates
   * dropped): a data URI as it came, a `file_id` unread. `io.parts()` gives them as model content.
   */
  attachments: Attachment[];
  /** Which tools the agent may use this turn. */
  tools: TurnTools;
  /** True when the host sent a screenshot: `io.lookAtScreen()` returns it. */
  screenAvailable: boolean;
  history: HistoryMessage[];
  files: HostAgentFile[];
  metadata: Record<string, unknown>;
  context: RequestContext;
  /**
   * Set when the turn is a regeneration or an edit-and-resend: `regenerate` (the newest answer is
   * asked for again; `message` is the user message it answered, `fromMessageId` the answer being
   * replaced) or `edit` (`message` is the new text, `fromMessageId` the user message it replaces).
   * Absent for a new message. `history` is already cut back.
   */
  mode?: 'regenerate' | 'edit';
  fromMessageId?: string;
  /**
   * `host_tools`: a silent host decision. `tools.host` holds only the context's actions and the
   * reserved `hold`; the agent proposes one action (a `tool_use`), or holds (`hold`, or nothing).
   * Its text, thinking and tool previews are dropped.
   */
  outputMode?: 'host_tools';
}

/** The conversation's files, and only those: anything else answers null. */
export interface HostAgentFiles {
  list(): Promise<HostAgentFile[]>;
  read(fileId: string): Promise<Uint8Array | null>;
  text(fileId: string): Promise<string | null>;
}

/** What the agent uses to report progress and learn that it should stop. */
export interface HostAgentIO {
  emit(event: HostEvent): void;
  signal: AbortSignal;
  files: HostAgentFiles;
  /** The screenshots the host sent with this message (the seed's look_at_screen); empty when none. */
  lookAtScreen(): Promise<Attachment[]>;
  /**
   * The names of the tools remembered for this session, as the turn (or the answer) starts: an
   * approval of each was answered with `remember_for_session: true` (the one just answered among
   * them, when it was). A model or SDK agent, whose loop the runtime runs, runs their calls without
   * asking, and says so on the call's `tool_use` (`remembered: true`). Always empty for a host agent:
   * it gets `rememberForSession` in the resolution and decides for itself.
   */
  rememberedTools: readonly string[];
  /**
   * Reference attachments as native model content, read when asked: without an id, this turn's
   * (`input.attachments`, or a continuation's); with the id of a message of `history` (or of a
   * steering message taken), that message's, as they were first given, to replay it. Text is
   * `{ type: 'text', text }`; an image or document is inline (`data`: base64, no `data:` prefix,
   * with `mediaType`) or a `url` the model provider fetches. A `file_id` is the file's bytes (a
   * text attachment: its extracted text). Screenshots are never among them (`lookAtScreen`).
   *
   * @example
   * ```ts
   * async invoke({ history }, io) {
   *   const messages = await Promise.all(
   *     history.map(async (m) => ({ role: m.role, content: [{ type: 'text', text: m.prompt }, ...(await io.parts(m.id))] })),
   *   );
   *   return { content: `${messages.length} messages for the model.` };
   * }
   * ```
   */
  parts(messageId?: string): Promise<ContentPart[]>;
  /**
   * Takes the steering messages sent (with `steer: true`) while this turn runs: each is then part
   * of this turn, prompt and attachments as for any message. Those not taken become the next turn.
   */
  takeSteering(): Promise<HistoryMessage[]>;
  /**
   * A Secrets Manager secret's string (an id or ARN), read with the function's own credentials once
   * per execution environment, never logged: how a model agent's `apiKeyFromSecret` is read. The
   * worker may read only the secrets the construct's `models.secrets` names.
   */
  secret(secretId: string): Promise<string>;
  /**
   * What this turn may still spend before a budget is reached: the tightest of the session's budget
   * and its owner's and tenant's rolling-day limits, as read once when the run started (on the first
   * ask), less the usage this turn has reported so far (priced as the turn's usage is). Undefined when
   * no budget applies. A loop asks before each model call and stops with `budget_reached` once `usd`
   * is 0 or less; asking reads nothing more from the table.
   */
  budgetLeft(): Promise<BudgetLeft | undefined>;
}

/** What a turn may still spend (`io.budgetLeft()`), and the budget that is tightest. */
export interface BudgetLeft {
  /** US dollars; 0 or less once the budget is reached. */
  usd: number;
  /** The session's budget, or its owner's or tenant's rolling-day limit. */
  scope: 'session' | 'user' | 'tenant';
}

/** The input of the `cancel` hook. */
export interface HostAgentCancelInput {
  conversationId: string;
  runId?: string;
  reason: 'user' | 'remote' | 'lease_lost' | 'deleted' | 'shutdown' | 'withdrawn' | 'expired';
  actions?: unknown[];
}

/**
 * A host-backed agent: the agent stays in the team's backend, these functions connect it.
 *
 * @example
 * ```ts
 * server.registerHostAgent({
 *   info: { id: 'support', name: 'Support' },
 *   async invoke({ message }, { emit }) {
 *     emit({ type: 'text', text: `You said: ${message}` });
 *     return {};
 *   },
 * });
 * ```
 */
export interface HostAgentDefinition {
  info: HostAgentInfo;
  /** The agent's own backend tools; the page scopes decide on which views each is offered. */
  tools?: ToolDefinition[];
  /** Timeouts and who may answer this agent's requests (over the server's defaults). */
  hitl?: HitlOptions;
  /** What a new message does to open requests: `keep` them (default) or `cancel` (withdraw) them. */
  pendingActionPolicy?: 'keep' | 'cancel';
  /** Which files a message to this agent may attach (its size limit, the types it accepts). */
  files?: AgentFileSettings;
  /** Prices per model, over the server's `pricing`: a usage with `model` and no `costUsd` is priced by it. */
  pricing?: Pricing;
  /** How much one session may spend (`{ sessionUsd }`), over the server's `budget`; `false` for none. */
  budget?: Budget;
  invoke(input: HostAgentInput, io: HostAgentIO): Promise<HostResult | unknown>;
  resolveAction?(input: ResolveActionInput, io: HostAgentIO): Promise<HostResult | unknown>;
  /**
   * Carries on a turn whose loop stopped at `max_turns` or `budget_reached` and returned a `resume`
   * (`POST /api/sessions/{id}/continue`): the loop goes on from where it stopped, with no new user
   * message. Model agents and AI SDK agents have it; an agent without it cannot be continued
   * (`409 nothing_to_continue`).
   */
  continueTurn?(input: ContinueTurnInput, io: HostAgentIO): Promise<HostResult | unknown>;
  cancel?(input: HostAgentCancelInput): Promise<void> | void;
  /** Keeps the agent's own record of a rating: runs after the rating is stored, before the server's `onFeedback`. */
  feedback?(event: FeedbackEvent): Promise<void> | void;
}

/**
 * A person rated an answer (or withdrew a rating): what the agent's `feedback` hook and the server's
 * `feedback.onFeedback` receive. The rating is stored before either runs.
 */
export interface FeedbackEvent {
  /** The session's ref, as `invoke` gets it. */
  conversationId: string;
  messageId: string;
  /** The message's 0-based position among the session's current messages (those GET messages lists). */
  messageIndex: number;
  agentId: string;
  userId: string;
  /** `null` when the rating was withdrawn. */
  rating: 'up' | 'down' | null;
  reasons: string[];
  comment?: string;
  /** The rating this one replaced, when there was one. */
  previous?: { rating: 'up' | 'down' | null; reasons: string[]; comment?: string; updatedAt: string };
  /** The answer, as the agent's history shows messages. */
  message: HistoryMessage;
  /** The user message it answered, when there is one. */
  question?: HistoryMessage;
  /** When the message was first rated, and this time. */
  createdAt: string;
  updatedAt: string;
  context: RequestContext;
}

/**
 * An agent's file settings, checked where a message to it attaches a file (over HTTP and WebSocket):
 * a larger file is `413 file_too_large`, another type `415 unsupported_media_type`, at the
 * attachment's `file_id`.
 */
export interface AgentFileSettings {
  /**
   * The largest file a message may attach, in bytes. Above `files.maxBytes` it also raises what
   * `POST /api/files` accepts, for the agents registered at start-up (not per-request ones).
   */
  maxBytes?: number;
  /** The media types accepted, each `type/subtype` or `type/*` (for example `application/pdf`, `image/*`). Default: every type. */
  mediaTypes?: string[];
}

/** Who may answer a pending request, and what happens when nobody does in time. */
export interface HitlOptions {
  /** Minutes a request stays open when the agent gives no `expiresAt`. Default 60. */
  timeoutMinutes?: number;
  /** What a lapsed request becomes: `deny` answers it as a refusal, `cancel` withdraws it. Default `deny`. */
  onTimeout?: 'deny' | 'cancel';
  /**
   * Decides who may answer. Default: only the session's owner. Asked only about callers of the
   * session's own tenant: nobody from another tenant may answer.
   */
  authorizeResolve?(input: {
    user: string;
    owner: string;
    sessionId: string;
    action: PendingAction;
    context: RequestContext;
  }): boolean | Promise<boolean>;
}

/** The input of `resolveAction`: one answered request and what surrounds it. */
export interface ResolveActionInput {
  actionId: string;
  /** The request, as it was asked. */
  action: PendingAction;
  /** The whole answer: decision, comment, approvedArgs, rememberForSession; answers; a client or host tool's output. */
  resolution: Record<string, unknown>;
  /** The other requests of the pause that are still open. */
  pendingActions: PendingAction[];
  /**
   * The requests asked with this one (the same pause of the same run) that were decided, and their
   * answers handed to `resolveAction`, before this one, in the order they were asked: what an agent
   * that waits for every answer of a pause reads the earlier ones from (the model loop gives the
   * model every result of one response together). Empty for a pause of one request.
   */
  answeredBefore: AnsweredRequest[];
  /** The user id, or `system:timeout`. */
  actor: string;
  channel: 'api' | 'timeout';
  /** True when the request lapsed and `hitl.onTimeout: "deny"` answered it. */
  expired: boolean;
  conversationId: string;
  runId: string;
  metadata: Record<string, unknown>;
  context: RequestContext;
  /** Reference attachments that came with the answer (a host tool continuation's). */
  attachments: Attachment[];
  /** The session's current host context (the last one received), as a continuation carries it; null without one. */
  hostContext: HostContext | null;
  /** The conversation's current messages, as `invoke`'s `history` gives them (the message that asked among them). */
  history: HistoryMessage[];
  /** The tools offered with this answer: the host's (as the current host context has them) and the agent's own. */
  tools: TurnTools;
}

/** The input of `continueTurn`: the stopped turn's `resume`, and what surrounds it. */
export interface ContinueTurnInput {
  conversationId: string;
  /** The continuing run. */
  runId: string;
  /** The run that stopped, whose loop this one carries on. */
  stoppedRunId: string;
  /** What the stopped turn's result carried as `resume`, as it was kept. */
  resume: Record<string, unknown>;
  metadata: Record<string, unknown>;
  context: RequestContext;
  /** The session's current host context (the last one received); null without one. */
  hostContext: HostContext | null;
  /** The conversation's current messages, as `invoke`'s `history` gives them (the stopped turn's answer among them). */
  history: HistoryMessage[];
  /** The tools offered: the host's (as the current host context has them) and the agent's own. */
  tools: TurnTools;
}

/** A request of a pause decided before the one `resolveAction` is handed: how it ended, and its answer. */
export interface AnsweredRequest {
  actionId: string;
  /** The request, as it was asked. */
  action: PendingAction;
  /** `resolved` (answered, or a lapse `hitl.onTimeout: "deny"` answered), or how it ended without an answer. */
  status: 'resolved' | 'cancelled' | 'expired' | 'superseded';
  /** Its answer, as `resolution` is given; empty for one that ended without an answer. */
  resolution: Record<string, unknown>;
  /** True when it lapsed. */
  expired: boolean;
}

/** A validated definition, ready to be served (what `hostAgentRegistration` returns). */
export interface HostAgentRegistration {
  readonly kind: 'host';
  readonly id: string;
  readonly definition: HostAgentDefinition;
  /** What hosts may read of it (`GET /api/agents`), as checked at registration. */
  readonly summary: AgentSummary;
}
