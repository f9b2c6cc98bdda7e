import type { ModelScript } from '../sandbox/index.ts';

/**
 * What the sandbox's scripted model answers the demo's suggested prompts with (`npm run start:model`
 * passes it as `--model-script`): the tool calls a real model would make for each, so that the
 * demo agent runs a real model loop offline. Edit it while `switchboard dev` runs: it is read again
 * on each change.
 */
const script: ModelScript = {
  rules: [
    {
      match: 'uptime',
      on: 'user',
      reply: { toolCalls: [{ name: 'status__uptime', arguments: { service: 'issue tracker' } }] },
    },
    {
      tool: 'status__uptime',
      reply: {
        text: 'The issue tracker was up 99.98% of the last 30 days, with one incident (the status MCP server says so).',
      },
    },
    {
      match: 'count the words',
      on: 'user',
      reply: { toolCalls: [{ name: 'text_stats', arguments: { text: 'Count the words in this sentence' } }] },
    },
    {
      tool: 'text_stats',
      reply: { text: 'That sentence has 6 words and 32 characters, as text_stats counted.' },
    },
    {
      match: { regex: 'refund', flags: 'i' },
      on: 'user',
      reply: {
        text: 'I can refund $25 on order 1042 once you approve. ',
        toolCalls: [{ name: 'issue_refund', arguments: { order: 1042, amount: 25 } }],
      },
    },
    { tool: 'issue_refund', match: 'denied', reply: { text: 'All right: no refund.' } },
    { tool: 'issue_refund', reply: { text: 'The refund is done.' } },
    {
      match: 'plan',
      on: 'user',
      reply: {
        toolCalls: [
          {
            name: 'ask_user',
            arguments: { question: 'Which plan fits your team?', options: ['Starter', 'Team', 'Enterprise'] },
          },
        ],
      },
    },
    { tool: 'ask_user', reply: { text: 'A fine choice: that plan it is.' } },
    {
      match: { regex: '\\btime\\b', flags: 'i' },
      on: 'user',
      reply: { toolCalls: [{ name: 'local_time', arguments: {} }] },
    },
    { tool: 'local_time', reply: { text: 'That is the time your device gave.' } },
    {
      match: 'closed issues',
      on: 'user',
      reply: {
        text: 'Switching your list to closed issues. ',
        toolCalls: [{ name: 'set_filter', arguments: { status: 'closed' } }],
      },
    },
    { tool: 'set_filter', reply: { text: 'Done: your page shows the closed issues.' } },
    {
      match: { regex: 'close issue #?2', flags: 'i' },
      on: 'user',
      reply: {
        text: 'Closing issue #2 on your page. ',
        toolCalls: [{ name: 'close_issue', arguments: { number: 2 } }],
      },
    },
    { tool: 'close_issue', match: '"error"', reply: { text: 'Your page could not close it.' } },
    { tool: 'close_issue', reply: { text: 'Done: issue #2 is closed.' } },
    {
      match: 'story',
      on: 'user',
      // The model holds its answer open after these words, until the turn is cancelled.
      reply: {
        text: 'Once upon a time, a switchboard operator named Ada connected calls across a sleepy town, and never dropped a word.',
        pauseUntilAborted: true,
      },
    },
    {
      match: 'file',
      on: 'user',
      reply: { toolCalls: [{ name: 'list_files', arguments: {} }] },
    },
    { tool: 'list_files', reply: { text: 'I see your file; its text came to me with your message.' } },
  ],
  default: {
    text: 'I am the demo agent on the sandbox’s scripted model. Try one of the suggested prompts.',
  },
};

export default script;
