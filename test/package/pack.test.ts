import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The package as a team gets it: `npm pack` of this repository, installed into a fresh project
 * outside it, an agents module written there with the README's import, one turn through the bin's
 * sandbox (`switchboard dev`) over HTTP and with the installed client, and a stack synthesised with
 * the construct from the installed package.
 * Slow (a build, an install and four bundles): one test, one file.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const work = mkdtempSync(join(tmpdir(), 'switchboard-pack-'));
const project = join(work, 'team');
let sandbox: ChildProcess | undefined;

afterAll(() => {
  sandbox?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}, 120_000);

function npm(args: string[], cwd: string) {
  return run('npm', args, { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
}

/** The agents module of the README ("Register an agent"), in JavaScript-compatible TypeScript. */
const AGENTS = `import { createSwitchboard } from 'switchboard';

const server = createSwitchboard();

server.registerHostAgent({
  info: { id: 'support', name: 'Support' },
  async invoke({ message }, { emit }) {
    emit({ type: 'text', text: 'Packed agent heard: ' + message });
    return {};
  },
});

export default server;
`;

/** A host of the team's: the installed client, reading events over HTTP (Node 20 has no global WebSocket). */
const HOST = `import { createClient } from 'switchboard/client';

const [url, token] = process.argv.slice(2);
const client = createClient({ url, token: () => token, transport: 'http' });
const session = client.session('packed-client', { agentId: 'support' });
const texts = [];
session.on('agent.message.delta', (e) => texts.push(e.data.text));
const accepted = await session.send('from the client');
const end = await session.waitForTurn(accepted.run_id);
client.close();
console.log(JSON.stringify({ end: end.type, text: texts.join('') }));
`;

/** A CDK app of the team's, with the construct from the installed package. */
const STACK = `import { App, Stack } from 'aws-cdk-lib';
import { Switchboard } from 'switchboard/infra';

const app = new App({ outdir: 'cdk.out' });
const stack = new Stack(app, 'Assistant');
new Switchboard(stack, 'S', { agents: './agents.ts', allowAnonymous: true });
const template = app.synth().getStackByName('Assistant').template;
const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
console.log(JSON.stringify({ functions: functions.length }));
`;

/** Types of every entry point, checked as the team's TypeScript would see them. */
const TYPES = `import { createSwitchboard, type HostAgentDefinition } from 'switchboard';
import { Switchboard, type SwitchboardProps } from 'switchboard/infra';
import { mintDevToken, type SandboxOptions, startSandbox } from 'switchboard/sandbox';

const agent: HostAgentDefinition = { info: { id: 'a' }, async invoke() { return { content: 'x' }; } };
createSwitchboard().registerHostAgent(agent);
const props: SwitchboardProps = { agents: './agents.ts', allowAnonymous: true };
const options: Partial<SandboxOptions> = { port: 0 };
export { Switchboard, mintDevToken, startSandbox, props, options };
`;

/** Starts `switchboard dev` in the project and resolves with its URL once it printed it. */
function startDev(): Promise<string> {
  sandbox = spawn(
    join(project, 'node_modules', '.bin', 'switchboard'),
    ['dev', '--agents', './agents.ts', '--port', '0'],
    { cwd: project, env: { ...process.env, LOG_LEVEL: 'ERROR' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += String(chunk);
      const url = out.match(/HTTP API: +(http:\/\/\S+)\/api/)?.[1];
      if (url) resolve(url);
    };
    sandbox?.stdout?.on('data', read);
    sandbox?.stderr?.on('data', read);
    sandbox?.once('exit', (code) => reject(new Error(`switchboard dev exited (${code}): ${out}`)));
  });
}

describe('the package', () => {
  it('installs from its tarball into a fresh project, serves a turn with switchboard dev and synthesises the construct', async () => {
    // npm pack runs the build (prepack); the tarball is what a registry would serve.
    const { stdout: packed } = await npm(['pack', '--json', '--pack-destination', work], ROOT);
    const [tarball] = JSON.parse(packed) as { filename: string; files: { path: string }[] }[];
    expect(tarball).toBeDefined();
    const files = tarball!.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/lib/index.js',
        'dist/lib/index.d.ts',
        'dist/infra/index.js',
        'dist/sandbox/index.js',
        'dist/bin/switchboard.js',
        'functions/http.ts',
        'lib/index.ts',
        'web/index.html',
      ]),
    );
    expect(files.filter((path) => /^demo\/|\.test\.ts$|(^|\/)demo-stack\./.test(path))).toEqual([]);

    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'team', private: true, type: 'module' }),
    );
    const deps = ['aws-cdk-lib', 'constructs', 'esbuild', 'typescript', '@types/node'].map(
      (name) => `${name}@${manifest.devDependencies[name]}`,
    );
    await npm(
      ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball!.filename), ...deps],
      project,
    );
    writeFileSync(join(project, 'agents.ts'), AGENTS);
    writeFileSync(join(project, 'stack.mjs'), STACK);
    writeFileSync(join(project, 'host.mjs'), HOST);
    writeFileSync(join(project, 'types.ts'), TYPES);

    // The declarations: every entry point's types resolve for a NodeNext project.
    await run(
      process.execPath,
      [
        join(project, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--target',
        'es2023',
        '--types',
        'node',
        'types.ts',
      ],
      { cwd: project },
    );

    // A turn through the bin's sandbox, with a token of the bin's token command.
    const url = await startDev();
    const { stdout: token } = await run(
      join(project, 'node_modules', '.bin', 'switchboard'),
      ['token', '--user', 'alice'],
      {
        cwd: project,
      },
    );
    const response = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.trim()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'packed', agent_id: 'support', content: 'hello', wait_ms: 20_000 }),
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('Packed agent heard: hello');
    expect(await (await fetch(`${url}/`)).text()).toContain('<html');
    // The same sandbox through the installed client.
    const { stdout: hosted } = await run(process.execPath, ['host.mjs', url, token.trim()], {
      cwd: project,
      timeout: 60_000,
    });
    expect(JSON.parse(hosted)).toEqual({
      end: 'session.status_idle',
      text: 'Packed agent heard: from the client',
    });
    sandbox?.kill('SIGTERM');

    // The construct from the installed package bundles the functions with the team's agents.
    const { stdout: synth } = await run(process.execPath, ['stack.mjs'], {
      cwd: project,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(JSON.parse(synth.trim().split('\n').at(-1)!)).toEqual({ functions: 4 });
    const bundles = readdirSync(join(project, 'cdk.out'))
      .map((dir) => join(project, 'cdk.out', dir, 'index.mjs'))
      .filter((file) => existsSync(file));
    expect(bundles).toHaveLength(4);
    const withAgent = bundles.filter((file) => readFileSync(file, 'utf8').includes('Packed agent heard: '));
    expect(withAgent).toHaveLength(4); // http, ws, worker and sweep: each imports #agents
    // The agents module's 'switchboard' is the sources the functions import, not a second copy from dist/.
    const maps = join(project, 'cdk.out', 'switchboard-source-maps');
    const sources = readdirSync(maps, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.map'))
      .flatMap(
        (file) => (JSON.parse(readFileSync(join(maps, file), 'utf8')) as { sources: string[] }).sources,
      );
    expect(sources.some((source) => source.includes('switchboard/lib/agents/'))).toBe(true);
    expect(sources.filter((source) => source.includes('switchboard/dist/'))).toEqual([]);
  }, 480_000);
});
