import { createSwitchboard } from '../lib/index.ts';
import { startDemoMcpServer } from './mcp-server.ts';
import { demoModelAgent } from './model-agent.ts';

/**
 * The agents module of `npm run start:model`: the demo on a model loop, under `switchboard dev`,
 * which starts the model and says where it is (SWITCHBOARD_MODEL_BASE_URL, SWITCHBOARD_MODEL_API_KEY):
 * the sandbox's scripted model with demo/model-script.ts, or a real endpoint when OPENAI_API_KEY is
 * set (SWITCHBOARD_DEMO_MODEL names its model, default gpt-4o-mini). It also starts the demo's MCP
 * server (demo/mcp-server.ts) on a free local port, whose tool the agent takes through `mcpServers`.
 */
const baseURL = process.env.SWITCHBOARD_MODEL_BASE_URL;
if (!baseURL)
  throw new Error('demo/model-agents.ts runs under switchboard dev, which sets SWITCHBOARD_MODEL_BASE_URL.');

// The demo's MCP server, started once per process: `switchboard dev` imports this module again
// when it changes, and the server it started first goes on serving.
const started = globalThis as { switchboardDemoMcp?: ReturnType<typeof startDemoMcpServer> };
started.switchboardDemoMcp ??= startDemoMcpServer();
const status = await started.switchboardDemoMcp;

const server = createSwitchboard();
server.registerChatCompletionsAgent(
  demoModelAgent({
    baseURL,
    apiKey: process.env.SWITCHBOARD_MODEL_API_KEY,
    model: process.env.SWITCHBOARD_DEMO_MODEL,
    statusUrl: status.url,
  }),
);

export default server;
