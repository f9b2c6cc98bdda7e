import type { ModelAgentDefinition } from '../lib/index.ts';
// The refund's arguments: the model's call and a person's edit are both checked against them.
import { DEMO_INFO, REFUND_SCHEMA } from './demo-agent.ts';

/** The prompt of the demo's MCP tool: the model calls `status__uptime`. */
export const UPTIME_PROMPT = 'What is the uptime of the issue tracker?';

/** The model demo's suggested prompts: the demo's, and one for the tool of its MCP server. */
export const MODEL_DEMO_SUGGESTIONS = [...DEMO_INFO.suggestions, UPTIME_PROMPT];

/**
 * The demo agent on a model loop: the same agent (`demo`: its name and suggested prompts) as the
 * scripted host agent, a Chat Completions agent that reaches the same features through the model's
 * tool calls. A backend tool (`text_stats`), an approval
 * whose arguments a person may edit (`issue_refund`), a question (`ask_user`), a client tool the
 * page answers (`local_time`), the page's host actions (`set_filter`, `close_issue`, offered from
 * its `host_context`), a long answer, the conversation's files (`list_files`), and the `uptime` tool
 * of an MCP server (`status__uptime`, demo/mcp-server.ts). Under
 * `switchboard dev` it calls the sandbox's scripted model (demo/model-script.ts), or a real
 * endpoint when OPENAI_API_KEY is set.
 */
export function demoModelAgent(options: {
  baseURL: string;
  apiKey?: string;
  model?: string;
  /** The demo's MCP server (demo/mcp-server.ts): its `uptime` tool is offered as `status__uptime`. */
  statusUrl: string;
}): ModelAgentDefinition {
  return {
    // The same agent as `npm start`'s: the page shows its issue list and its prompts for it, and one
    // more, for the tool of its MCP server.
    info: {
      ...DEMO_INFO,
      description: 'The demo agent, with a model choosing the tools.',
      suggestions: MODEL_DEMO_SUGGESTIONS,
    },
    baseURL: options.baseURL,
    // An endpoint that takes no key (a local vLLM or Ollama) still gets a header the client insists on.
    apiKey: options.apiKey ?? 'none',
    model: options.model ?? 'gpt-4o-mini',
    system: [
      'You are the assistant of an issue tracker page, showing what Switchboard can do.',
      'Use text_stats to count words, issue_refund to refund an order, ask_user to ask which plan fits,',
      'local_time for the time on the person’s device, list_files for the files they attached, and the',
      'page’s actions (set_filter, close_issue) to change the page, and status__uptime for the uptime of',
      'the issue tracker or its API. Keep answers short.',
    ].join(' '),
    questions: true,
    mcpServers: [{ name: 'status', url: options.statusUrl }],
    hitl: { timeoutMinutes: 30 },
    tools: [
      {
        name: 'text_stats',
        description: 'Count the words and characters of a text.',
        parameters: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
        execute: (args) => {
          const text = String((args as { text: string }).text);
          const words = text.trim().split(/\s+/).filter(Boolean);
          return { characters: text.length, words: words.length };
        },
      },
      {
        name: 'issue_refund',
        description: 'Refund an amount (at most $100) on an order. A person approves each refund.',
        parameters: REFUND_SCHEMA,
        approval: {
          title: (args) =>
            `Refund $${(args as { amount: number }).amount} on order ${(args as { order: number }).order}?`,
        },
        execute: (args) => ({ refunded: (args as { amount: number }).amount }),
      },
      {
        // No `execute`: the page runs it (a client_tool request) and its output goes back to the model.
        name: 'local_time',
        description: 'The time and time zone on the person’s device.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
      {
        name: 'list_files',
        description: 'The files of this conversation: their names, types and sizes.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        execute: async (_, { files }) =>
          (await files.list()).map((f) => ({ name: f.name, type: f.mimeType, bytes: f.size })),
      },
    ],
  };
}
