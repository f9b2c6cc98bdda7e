import type { OpenAI } from 'openai';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ContentPart } from '../contract/index.ts';
import { ChatReader } from './parse-chat.ts';
import type { ModelMessage } from './transcript.ts';
import { dataUrl, documentLink, type Wire, type WireRequest } from './wire.ts';

/** A part as Chat Completions content: images as `image_url`, inline documents as `file`, a linked document as text. */
function chatPart(part: ContentPart): ChatCompletionContentPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image')
    return { type: 'image_url', image_url: { url: 'data' in part ? dataUrl(part) : part.url } };
  if ('data' in part)
    return { type: 'file', file: { filename: part.name ?? 'document', file_data: dataUrl(part) } };
  return { type: 'text', text: documentLink(part) };
}

/** The conversation as Chat Completions messages: the system prompt first, a user message of text alone as a string. */
export function chatMessages(
  system: string | undefined,
  messages: ModelMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system === undefined ? [] : [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') {
      const [first] = m.content;
      out.push({
        role: 'user',
        content: m.content.length === 1 && first?.type === 'text' ? first.text : m.content.map(chatPart),
      });
    } else if (m.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: m.text === '' && m.calls.length > 0 ? null : m.text,
        ...(m.calls.length > 0 && {
          tool_calls: m.calls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: c.name, arguments: c.args },
          })),
        }),
      });
    } else {
      out.push({ role: 'tool', tool_call_id: m.callId, content: m.output });
    }
  }
  return out;
}

/** The whole request body of one call. */
export function chatRequest(request: Omit<WireRequest, 'signal'>): ChatCompletionCreateParamsStreaming {
  return {
    model: request.model,
    messages: chatMessages(request.system, request.messages),
    ...(request.tools.length > 0 && {
      tools: request.tools.map((t) => ({
        type: 'function' as const,
        function: {
          name: t.name,
          ...(t.description !== undefined && { description: t.description }),
          parameters: t.parameters,
        },
      })),
      tool_choice: request.toolChoice,
    }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    stream: true,
    stream_options: { include_usage: true },
  };
}

/** Chat Completions (`POST /chat/completions`, streamed): each chunk read by {@link ChatReader}, text deltas passed on as they come. */
export const chatCompletions: Wire = async (client: OpenAI, request, onText) => {
  const { signal, ...body } = request;
  const stream = await client.chat.completions.create(chatRequest(body), { signal });
  const reader = new ChatReader(request.model);
  for await (const chunk of stream) {
    const text = reader.read(chunk);
    if (text !== undefined) onText(text);
  }
  return reader.answer();
};
