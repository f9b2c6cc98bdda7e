import type { OpenAI } from 'openai';
import type {
  ResponseCreateParamsStreaming,
  ResponseInputContent,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { ContentPart } from '../contract/index.ts';
import { ResponsesReader } from './parse-responses.ts';
import type { ModelMessage } from './transcript.ts';
import { dataUrl, type Wire, type WireRequest } from './wire.ts';

/** A part as Responses input content: `input_text`, `input_image`, `input_file` (inline or by URL). */
function responsesPart(part: ContentPart): ResponseInputContent {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  if (part.type === 'image')
    return { type: 'input_image', detail: 'auto', image_url: 'data' in part ? dataUrl(part) : part.url };
  if ('data' in part)
    return { type: 'input_file', filename: part.name ?? 'document', file_data: dataUrl(part) };
  return { type: 'input_file', file_url: part.url };
}

/** The conversation as Responses input items: messages, `function_call` and `function_call_output` items. */
export function responsesInput(messages: ModelMessage[]): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content.map(responsesPart) });
    else if (m.role === 'assistant') {
      if (m.text !== '') out.push({ role: 'assistant', content: m.text });
      for (const c of m.calls)
        out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.args });
    } else out.push({ type: 'function_call_output', call_id: m.callId, output: m.output });
  }
  return out;
}

/** The whole request body of one call: the system prompt as `instructions`, nothing stored by the provider. */
export function responsesRequest(request: Omit<WireRequest, 'signal'>): ResponseCreateParamsStreaming {
  return {
    model: request.model,
    ...(request.system !== undefined && { instructions: request.system }),
    input: responsesInput(request.messages),
    ...(request.tools.length > 0 && {
      tools: request.tools.map((t) => ({
        type: 'function' as const,
        name: t.name,
        ...(t.description !== undefined && { description: t.description }),
        parameters: t.parameters,
        strict: false,
      })),
      tool_choice: request.toolChoice,
    }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    store: false,
    stream: true,
  };
}

/** The Responses API (`POST /responses`, streamed): each event read by {@link ResponsesReader}, text deltas passed on as they come. */
export const responses: Wire = async (client: OpenAI, request, onText) => {
  const { signal, ...body } = request;
  const stream = await client.responses.create(responsesRequest(body), { signal });
  const reader = new ResponsesReader(request.model);
  for await (const event of stream) {
    const text = reader.read(event);
    if (text !== undefined) onText(text);
  }
  return reader.answer();
};
