import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import { DevProcess } from '../support/dev-process.ts';
import { api } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LIB = pathToFileURL(join(root, 'lib/index.ts')).href;

/**
 * An agents module that reads where its model is as it loads, and asks it a user's message as a
 * Chat Completions request (with the key it is given): `where` answers with the address it read.
 */
const AGENTS = `import { createSwitchboard } from '${LIB}';

const baseURL = process.env.SWITCHBOARD_MODEL_BASE_URL;
const app = createSwitchboard();
app.registerHostAgent({
  info: { id: 'asker' },
  async invoke(input) {
    if (input.message === 'where') return { content: String(baseURL) };
    const res = await fetch(\`\${baseURL}/chat/completions\`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: \`Bearer \${process.env.SWITCHBOARD_MODEL_API_KEY}\` },
      body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: input.message }] }),
    });
    const body = await res.json();
    return { content: res.ok ? body.choices[0].message.content : \`\${res.status}: \${body.error.message}\` };
  },
});
export default app;
`;

const SCRIPT = { rules: [{ match: { regex: '^ping$' }, reply: { text: 'pong' } }] };

/** A directory with the agents module and the script. */
function agentsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-model-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'agents.ts'), AGENTS);
  writeFileSync(join(dir, 'model-script.json'), JSON.stringify(SCRIPT));
  writeFileSync(join(dir, 'bad-script.json'), JSON.stringify({ rules: [{ match: 'x' }] }));
  return dir;
}

/** Sends `content` to the agent in a new session and returns its answer. */
async function ask(dev: DevProcess, session: string, content: string): Promise<string> {
  const sent = await api(dev.url, 'POST', '/api/chat', { session_id: session, agent_id: 'asker', content });
  expect(sent.status, sent.text).toBe(202);
  let answer = '';
  await expect
    .poll(
      async () => {
        const res = await api<{ messages?: { role: string; content: string }[] }>(
          dev.url,
          'GET',
          `/api/sessions/${session}/messages`,
        );
        answer = res.json.messages?.find((m) => m.role === 'assistant')?.content ?? '';
        return answer;
      },
      queued(`the answer in ${session}`),
    )
    .not.toBe('');
  return answer;
}

describe('switchboard dev’s model', () => {
  const dir = agentsDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('without OPENAI_API_KEY: the scripted model', () => {
    let dev: DevProcess;
    beforeAll(async () => {
      dev = await DevProcess.start(
        ['--agents', join(dir, 'agents.ts'), '--anonymous', '--model-script', join(dir, 'model-script.json')],
        { OPENAI_API_KEY: '' },
      );
    }, 90_000);
    afterAll(() => dev?.stop());

    it('starts it, tells the agents where it is and its key, and prints where (never the key)', async () => {
      const line = /^ {2}Model: +scripted, (http:\/\/127\.0\.0\.1:\d+\/v1) \(script: (\S+)\)$/m.exec(
        dev.stdout,
      );
      expect(line?.[2]).toBe(join(dir, 'model-script.json'));
      expect(await ask(dev, 'where', 'where')).toBe(line?.[1]);
      expect(await ask(dev, 'ping', 'ping')).toBe('pong');
      expect(await ask(dev, 'other', 'something else')).toBe(
        'The sandbox\'s scripted model has no rule for: "something else"',
      );
      expect(dev.stdout + dev.stderr).not.toMatch(/sk-sandbox-/);
    });

    it('reads the script again when it changes, and keeps the one it has when the new one is wrong', async () => {
      const script = join(dir, 'model-script.json');
      let since = dev.stdout.length;
      writeFileSync(script, JSON.stringify({ rules: [{ match: 'ping', reply: { text: 'pong again' } }] }));
      await dev.waitFor(
        'stdout',
        /Reloaded the model script from \S+model-script\.json/,
        'the reload',
        since,
      );
      expect(await ask(dev, 'ping-2', 'ping')).toBe('pong again');
      since = dev.stderr.length;
      writeFileSync(script, JSON.stringify({ rules: [{ match: 'ping', reply: { txt: 'typo' } }] }));
      const printed = await dev.waitFor(
        'stderr',
        /Could not reload the model script/,
        'the failed reload',
        since,
      );
      expect(printed).toContain('rules.0.reply');
      expect(await ask(dev, 'ping-3', 'ping')).toBe('pong again');
    });
  });

  describe('with OPENAI_API_KEY and --model-base-url: the endpoint named', () => {
    // The "real" endpoint here is a scripted model of the test's own, with a key of its own.
    let endpoint: ScriptedModel;
    let dev: DevProcess;
    beforeAll(async () => {
      endpoint = await startScriptedModel({ script: SCRIPT, apiKey: 'sk-endpoint-test' });
      dev = await DevProcess.start(
        ['--agents', join(dir, 'agents.ts'), '--anonymous', '--model-base-url', endpoint.baseURL],
        { OPENAI_API_KEY: 'sk-endpoint-test' },
      );
    }, 90_000);
    afterAll(async () => {
      await dev?.stop();
      await endpoint?.close();
    });

    it('gives the agents the endpoint and the key, and starts no scripted model', async () => {
      expect(dev.stdout).toContain(`  Model:      ${endpoint.baseURL}, with the key in OPENAI_API_KEY\n`);
      expect(await ask(dev, 'where', 'where')).toBe(endpoint.baseURL);
      expect(await ask(dev, 'ping', 'ping')).toBe('pong');
      expect(endpoint.requests.map((r) => r.status)).toEqual([200]);
      expect(dev.stdout + dev.stderr).not.toContain('sk-endpoint-test');
    });
  });

  describe('mistakes on the command line', () => {
    const run = promisify(execFile);
    const start = async (env: Record<string, string>, ...args: string[]) => {
      const cli = [
        '--import',
        'tsx',
        'bin/switchboard.ts',
        'dev',
        '--agents',
        join(dir, 'agents.ts'),
        ...args,
      ];
      try {
        await run(process.execPath, cli, { cwd: root, timeout: 60_000, env: { ...process.env, ...env } });
        return { code: 0, stderr: '' };
      } catch (error) {
        const failed = error as { code?: number; stderr?: string };
        return { code: failed.code ?? -1, stderr: failed.stderr ?? '' };
      }
    };

    it('refuses a scripted model with a base URL, an endpoint without a key, and a bad script (exit 2)', async () => {
      const both = await start({}, '--model', 'scripted', '--model-base-url', 'http://127.0.0.1:9/v1');
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('--model-base-url names a real endpoint');
      const keyless = await start({ OPENAI_API_KEY: '' }, '--model', 'endpoint');
      expect(keyless.code).toBe(2);
      expect(keyless.stderr).toContain('--model endpoint needs OPENAI_API_KEY');
      const bad = await start({ OPENAI_API_KEY: '' }, '--model-script', join(dir, 'bad-script.json'));
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('rules.0: a rule has a reply or an error (one of them)');
    }, 90_000);
  });
});
