import type { OpenAI } from 'openai';
import type { ContentPart, Usage } from '../contract/index.ts';
import type { ModelCall, ModelMessage } from './transcript.ts';

/** A tool as the model is offered it: a function with a JSON Schema of its arguments. */
export interface OfferedTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** One model call, in no endpoint's format. */
export interface WireRequest {
  model: string;
  system?: string;
  messages: ModelMessage[];
  tools: OfferedTool[];
  /** `required`: the model must call one of the tools (a silent host decision). */
  toolChoice: 'auto' | 'required';
  temperature?: number;
  signal: AbortSignal;
}

/** What one model call answered: its text (streamed through `onText` as it came), its calls, its usage. */
export interface WireAnswer {
  text: string;
  calls: ModelCall[];
  usage?: Usage;
  /** Why the model stopped (`stop`, `tool_calls`, `length`, …), when the endpoint said. */
  finishReason?: string;
  /** The model the endpoint says answered, when it said (a plain name). */
  responseModel?: string;
}

/** An endpoint's wire: writes the request in its format, streams it, reads its answer. */
export type Wire = (
  client: OpenAI,
  request: WireRequest,
  onText: (text: string) => void,
) => Promise<WireAnswer>;

/** An inline part as a `data:` URL, the form both wires take inline images and files in. */
export const dataUrl = (part: { mediaType: string; data: string }) =>
  `data:${part.mediaType};base64,${part.data}`;

/** The text of a document the endpoint cannot fetch by URL itself (Chat Completions). */
export const documentLink = (part: Extract<ContentPart, { type: 'document' }> & { url: string }) =>
  `Document${part.name ? ` ${part.name}` : ''}: ${part.url}`;
