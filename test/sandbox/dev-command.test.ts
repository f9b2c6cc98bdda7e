import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultReport } from '../../sandbox/aws/index.ts';
import { devCommand } from '../../sandbox/dev-command.ts';
import { UsageError } from '../../sandbox/token-command.ts';
import { DevProcess } from '../support/dev-process.ts';
import { api } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket } from '../support/ws-client.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LIB = pathToFileURL(join(root, 'lib/index.ts')).href;

/**
 * A developer's agents module in a directory of its own: `echo` answers with the prefix a local
 * file exports and the URL it was loaded from; `throw` throws, `invalid` emits a malformed event and
 * returns a status the runtime does not know.
 */
const AGENTS = `import { createSwitchboard } from '${LIB}';
import { PREFIX } from './reply.ts';

const app = createSwitchboard();
app.registerHostAgent({
  info: { id: 'echo' },
  async invoke(input, { emit }) {
    if (input.message === 'throw') throw new TypeError('the backend is down');
    if (input.message === 'invalid') {
      emit({ type: 'tool_use' });
      return { status: 'sideways' };
    }
    return { content: \`\${PREFIX}: \${input.message} from \${import.meta.url}\` };
  },
});
export default app;
`;
const THROW_LINE = AGENTS.split('\n').findIndex((line) => line.includes('the backend is down')) + 1;

/** A fresh directory holding the agents module, its local import and a package.json of an ES module project. */
function agentsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-dev-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'reply.ts'), "export const PREFIX = 'v1';\n");
  writeFileSync(join(dir, 'agents.ts'), AGENTS);
  return dir;
}

/** The JSON payload of a JWT. */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

/** Sends a message to `echo` in session `id`; its run id. */
async function send(dev: DevProcess, id: string, content: string, token?: string): Promise<string> {
  const res = await api(
    dev.url,
    'POST',
    '/api/chat',
    { session_id: id, agent_id: 'echo', content },
    { token },
  );
  expect(res.status, res.text).toBe(202);
  return String(res.json.run_id);
}

/** The session's assistant answers, once there are `count` of them. */
async function answers(dev: DevProcess, id: string, count: number, token?: string): Promise<string[]> {
  let found: string[] = [];
  await expect
    .poll(
      async () => {
        const res = await api<{ messages?: { role: string; content: string }[] }>(
          dev.url,
          'GET',
          `/api/sessions/${id}/messages`,
          undefined,
          { token },
        );
        found = (res.json.messages ?? []).filter((m) => m.role === 'assistant').map((m) => m.content);
        return found.length;
      },
      queued(`${count} answer(s) in session ${id}`),
    )
    .toBe(count);
  return found;
}

describe('switchboard dev', () => {
  const dir = agentsDir();
  let dev: DevProcess;
  let token = '';

  beforeAll(async () => {
    dev = await DevProcess.start([
      '--agents',
      join(dir, 'agents.ts'),
      '--user',
      'alice',
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--token-ttl',
      '2h',
    ]);
    token = /^ {2}alice: (\S+)$/m.exec(dev.stdout)?.[1] ?? '';
  }, 90_000);

  afterAll(async () => {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a token for each --user, with a curl and a wscat command that work as printed', async () => {
    const tokens = [...dev.stdout.matchAll(/^ {2}(\w+): (\S+)$/gm)].map(([, user, jwt]) => ({ user, jwt }));
    expect(tokens.map((t) => t.user)).toEqual(['alice', 'bob']);
    for (const { user, jwt = '' } of tokens) {
      const claims = claimsOf(jwt);
      expect(claims).toMatchObject({ sub: user, tenant: 'acme', aud: 'switchboard-sandbox' });
      expect(Number(claims.exp) - Number(claims.iat)).toBe(7_200);
    }
    const curl = new RegExp(`^ {4}curl -H 'Authorization: Bearer ${token}' (\\S+)$`, 'm').exec(dev.stdout);
    const wscat = new RegExp(`^ {4}wscat -c '(\\S+\\?token=${token})'$`, 'm').exec(dev.stdout);
    expect(curl?.[1]).toBe(`${dev.url}/api/sessions`);
    const listed = await fetch(curl?.[1] ?? '', { headers: { authorization: `Bearer ${token}` } });
    expect(listed.status).toBe(200);
    const socket = await TestSocket.open(wscat?.[1] ?? '');
    await socket.close();
    // Without a token the API refuses the call: the printed token is what let it through.
    expect((await fetch(`${dev.url}/api/sessions`)).status).toBe(401);
  });

  it("prints an agent's throw as a few readable lines: agent, session, run, the error and the agent's own frame", async () => {
    const since = dev.stderr.length;
    const runId = await send(dev, 'throws', 'throw', token);
    const text = await dev.waitFor('stderr', /The agent failed\n.*\n.*agents\.ts:\d+/, 'the failure', since);
    const lines = text.split('\n');
    const head = lines.findIndex((l) => l.includes('The agent failed'));
    expect(lines[head]).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d ERROR agent echo · session throws · run ${runId}: The agent failed$`),
    );
    expect(lines[head + 1]).toBe('  TypeError: the backend is down');
    // The agent's own frame, with its line, and nothing of the runtime's or its dependencies'.
    expect(lines[head + 2]).toMatch(
      new RegExp(`^ {4}at .*invoke \\(${dir}/agents\\.ts:${THROW_LINE}:\\d+\\)$`),
    );
    expect(text).not.toContain('{"level"');
    expect(text).not.toContain('node_modules');
    expect(text).not.toContain(join(root, 'lib'));
  });

  it('prints a malformed event and an invalid result with the fields at fault', async () => {
    const since = dev.stderr.length;
    const runId = await send(dev, 'invalid', 'invalid', token);
    const text = await dev.waitFor('stderr', /cannot use.*\n.*\n {2}- status: /, 'the invalid result', since);
    const who = `agent echo · session invalid · run ${runId}`;
    expect(text).toMatch(
      new RegExp(`WARN {2}${who}: Ignored a malformed event.*\\n {2}- id: .+\\n {2}- name: `),
    );
    expect(text).toMatch(
      new RegExp(
        `ERROR ${who}: The agent returned a result the runtime cannot use \\(code=invalid_host_result\\)\\n` +
          ' {2}InvalidHostResultError: .*\\n {2}- status: Invalid option',
      ),
    );
  });

  it('reloads the agents module when a file it imports changes, and the session carries on', async () => {
    await send(dev, 'reload', 'first', token);
    const [first] = await answers(dev, 'reload', 1, token);
    const prefix = `v${Date.now()}`;
    const since = dev.stdout.length;
    writeFileSync(join(dir, 'reply.ts'), `export const PREFIX = '${prefix}';\n`);
    await dev.waitFor('stdout', /Reloaded agents from .*agents\.ts/, 'the reload', since);
    await send(dev, 'reload', 'second', token);
    const both = await answers(dev, 'reload', 2, token);
    // The session's first answer is still there: dynalite kept it across the reload.
    expect(both[0]).toBe(first);
    expect(both[1]).toMatch(
      new RegExp(`^${prefix}: second from file://.*agents\\.ts\\?switchboard-reload=\\d+$`),
    );
  });

  it('keeps serving the agents it had when the new code does not load, and prints why', async () => {
    const file = join(dir, 'agents.ts');
    const good = readFileSync(file, 'utf8');
    try {
      const since = dev.stderr.length;
      writeFileSync(file, `${good}\nexport const broken = ;\n`);
      const text = await dev.waitFor('stderr', /keep serving\.\n.+/, 'the failed reload', since);
      expect(text).toMatch(
        /Could not reload agents from .*agents\.ts; the agents loaded before keep serving\./,
      );
      expect(text).toMatch(/agents\.ts:\d+:\d+/);
      await send(dev, 'broken', 'still here', token);
      expect((await answers(dev, 'broken', 1, token))[0]).toMatch(/: still here from /);
    } finally {
      const since = dev.stdout.length;
      writeFileSync(file, good);
      await dev.waitFor('stdout', /Reloaded agents from/, 'the reload of the repaired module', since);
    }
  });
});

describe('switchboard dev --no-watch --json-logs', () => {
  const dir = agentsDir();
  let dev: DevProcess;

  beforeAll(async () => {
    dev = await DevProcess.start([
      '--agents',
      join(dir, 'agents.ts'),
      '--no-watch',
      '--anonymous',
      '--json-logs',
      '--allow-host',
      '10.0.2.2',
    ]);
  }, 90_000);

  afterAll(async () => {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the agents module once, as it is, and does not say it reloads it', async () => {
    expect(dev.stdout).toMatch(/Agents: +\S+agents\.ts\n/);
    await send(dev, 'plain', 'hello');
    const [answer] = await answers(dev, 'plain', 1);
    expect(answer).toBe(`v1: hello from ${pathToFileURL(join(dir, 'agents.ts')).href}`);
  });

  it('answers the names --allow-host gives and loopback ones, and 403 to any other Host', async () => {
    const { port } = new URL(dev.url);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const out = request({ host: '127.0.0.1', port, path: '/api/sessions', headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        out.on('error', reject).end();
      });
    expect(await status(`10.0.2.2:${port}`)).toBe(200);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`attacker.example:${port}`)).toBe(403);
  });

  it('refuses an --allow-host that is not a host name', async () => {
    await expect(devCommand(['--allow-host', 'http://10.0.2.2:3000'])).rejects.toThrow(
      /--allow-host takes a host name or address/,
    );
    await expect(devCommand(['--allow-host', '10.0.2.2:3000'])).rejects.toThrow(UsageError);
  });

  it("prints the log as Lambda's JSON lines", async () => {
    const since = dev.stderr.length;
    const runId = await send(dev, 'json', 'throw');
    const text = await dev.waitFor('stderr', /"message":"The agent failed"/, 'the failure', since);
    const line = text.split('\n').find((l) => l.includes('"message":"The agent failed"')) ?? '';
    expect(JSON.parse(line)).toMatchObject({
      level: 'ERROR',
      agentId: 'echo',
      runId,
      error: { name: 'TypeError', message: 'the backend is down' },
    });
  });
});

describe('switchboard dev --faults SEED:heavy', () => {
  const dir = agentsDir();
  let dev: DevProcess;

  beforeAll(async () => {
    dev = await DevProcess.start(['--agents', join(dir, 'agents.ts'), '--anonymous', '--faults', '7:heavy']);
  }, 90_000);
  afterAll(async () => {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves what it injected at GET /sandbox/faults, and prints it by service and operation on exit', async () => {
    expect(dev.stdout).toContain('Faults:     injected, seed 7 (heavy)');
    // A host's retry of a 5xx, as the protocol allows: under heavy faults the first answer may be one.
    let status = 0;
    for (let attempt = 0; attempt < 20 && !(status >= 200 && status < 500); attempt += 1) {
      const body = { id: 'f-1', session_id: 'f', agent_id: 'echo', content: 'hi' };
      status = (await api(dev.url, 'POST', '/api/chat', body).catch(() => ({ status: 599 }))).status;
    }
    expect(status).toBe(202);
    const { json: report } = await api<FaultReport>(dev.url, 'GET', '/sandbox/faults');
    expect(report).toMatchObject({ seed: 7, profile: 'heavy', enabled: true });
    expect(report.calls.dynamodb).toBeGreaterThan(0);
    const counted = Object.values(report.byService).flatMap((kinds) => Object.values(kinds ?? {}));
    expect(counted.reduce((a, b) => a + (b ?? 0), 0)).toBe(report.injected);

    const before = dev.stdout.length;
    await dev.stop();
    const printed = dev.stdout.slice(before);
    expect(printed).toMatch(/Faults \(seed 7, heavy\): \d+ injected in \d+ calls; \d+ bursts/);
    expect(printed).toMatch(/^ {2}dynamodb \(\d+ calls\)/m);
  }, 120_000);
});

describe('switchboard dev, mistakes on the command line', () => {
  const run = promisify(execFile);
  const dev = async (...args: string[]) => {
    const cli = ['--import', 'tsx', 'bin/switchboard.ts', 'dev', '--agents', 'demo/agents.ts', ...args];
    try {
      await run(process.execPath, cli, { cwd: root, timeout: 60_000 });
      return { code: 0, stderr: '' };
    } catch (error) {
      const failed = error as { code?: number; stderr?: string };
      return { code: failed.code ?? -1, stderr: failed.stderr ?? '' };
    }
  };

  it('refuses --user with --anonymous, and a --token-ttl that is no duration, as usage mistakes (exit 2)', async () => {
    const anonymous = await dev('--user', 'alice', '--anonymous');
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toContain('--user makes tokens, and --anonymous takes none');
    const ttl = await dev('--user', 'alice', '--token-ttl', 'soon');
    expect(ttl.code).toBe(2);
    expect(ttl.stderr).toContain('--token-ttl must be a positive duration');
    expect(ttl.stderr).toContain('Usage: switchboard dev');
    const faults = await dev('--faults', '7:extreme');
    expect(faults.code).toBe(2);
    expect(faults.stderr).toContain('--faults takes a seed');
  }, 60_000);

  it('says a port in use is in use, and which flag picks another (exit 1, no stack trace)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const busy = await dev('--port', String(port));
      expect(busy.code).toBe(1);
      expect(busy.stderr.trim()).toBe(
        `error: Port ${port} on 127.0.0.1 is in use: another sandbox or server listens there. ` +
          'Stop it, or pick another port with --port N (--port 0 picks a free one).',
      );
    } finally {
      taken.close();
    }
  }, 60_000);
});
