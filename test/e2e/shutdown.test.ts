import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { within } from '../support/wait.ts';
import { TestSocket } from '../support/ws-client.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sigterm-'));
let child: ChildProcess | undefined;

afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `npm start`'s program as its own process and resolves with its URLs once it printed them. */
function startProcess(): Promise<{ url: string; wsUrl: string }> {
  child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'bin/switchboard.ts',
      'dev',
      '--agents',
      'demo/agents.ts',
      '--port',
      '0',
      '--data',
      dataDir,
      '--anonymous',
    ],
    {
      cwd: root,
      env: { ...process.env, SWITCHBOARD_DEMO_DELAY_MS: '400', LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child?.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const http = out.match(/HTTP API: +(http:\/\/\S+)\/api/);
      const ws = out.match(/WebSocket: +(ws:\/\/\S+)/);
      if (http?.[1] && ws?.[1]) resolve({ url: http[1], wsUrl: ws[1] });
    });
    child?.once('exit', (code) => reject(new Error(`the sandbox exited early (${code}): ${out}`)));
  });
}

describe('shutdown', () => {
  it('stops a running turn with reason shutdown on SIGTERM and exits cleanly; the data directory keeps the closed turn', async () => {
    const { wsUrl } = await within(startProcess(), 'the sandbox process to print its URLs');
    const host = await TestSocket.open(wsUrl);
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: 'sigterm',
      content: 'please answer slowly',
    });
    await host.waitFor((f) => f.type === 'agent.message.delta', 'the first text delta');
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child?.kill('SIGTERM');
    expect(await within(exited, 'the sandbox process to exit on SIGTERM')).toBe(0);
    child = undefined;

    const app = createSwitchboard();
    app.registerHostAgent(demoAgent());
    // The data directory's own session-ref key, as the process used: the refs are the same again.
    const sandbox = await testSandbox({ app, dataDir, refKey: undefined });
    try {
      const session = (await api(sandbox.url, 'GET', '/api/sessions/sigterm')).json;
      expect(session).toMatchObject({
        status: 'idle',
        last_run: { id: accepted.run_id, status: 'cancelled', stop_reason: 'cancelled' },
      });
      const events = (await api(sandbox.url, 'GET', '/api/sessions/sigterm/events')).json.events as {
        type: string;
        data: Record<string, unknown>;
      }[];
      expect(events.at(-1)).toMatchObject({
        type: 'session.status_idle',
        data: { status: 'cancelled', detail: { reason: 'shutdown' } },
      });
      const messages = (await api(sandbox.url, 'GET', '/api/sessions/sigterm/messages')).json.messages as {
        content: string;
        stop_reason?: string;
      }[];
      expect(messages[1]?.stop_reason).toBe('cancelled');
      expect(messages[1]?.content.length).toBeGreaterThan(0);
    } finally {
      await sandbox.close();
    }
  });
});
