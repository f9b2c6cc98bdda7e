import type { HostEvent, HostResult } from './schemas.ts';

/** Who is asking, as `resolveContext` (the authoriser) says: never taken from the host's own words. */
export interface RequestContext {
  user: { id: string } | null;
  data: Record<string, unknown>;
}

/** One message of the conversation, as an agent sees it. */
export interface HistoryMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
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
  history: HistoryMessage[];
  files: HostAgentFile[];
  metadata: Record<string, unknown>;
  context: RequestContext;
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
}

/** Agent metadata: `id` is required and unique within a server. */
export interface HostAgentInfo {
  id: string;
  name?: string;
  description?: string;
  capabilities?: Record<string, boolean>;
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
  invoke(input: HostAgentInput, io: HostAgentIO): Promise<HostResult | unknown>;
  resolveAction?(input: Record<string, unknown>, io: HostAgentIO): Promise<HostResult | unknown>;
  cancel?(input: HostAgentCancelInput): Promise<void> | void;
  feedback?(event: Record<string, unknown>): Promise<void> | void;
}

/** A validated definition, ready to be served (what `hostAgentRegistration` returns). */
export interface HostAgentRegistration {
  readonly kind: 'host';
  readonly id: string;
  readonly definition: HostAgentDefinition;
}
