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
import { shownOutput, tourFiles } from './readme-tour.ts';

/**
 * The package as a team gets it, and the README's five-minute tour as a team follows it: `npm pack`
 * of this repository, installed into a fresh project outside it; the tour's `agents.ts`,
 * `tsconfig.json`, `client.ts`, `app.ts` and `cdk.json`, taken as they are from the README's blocks,
 * type-checked by the tour's `npx tsc`, and the package's declarations by a stricter check;
 * the agent with its approval run through the bin's sandbox (`switchboard dev`), over HTTP and by
 * the client script, which answers the approval and prints what the README says it prints; and the
 * tour's CDK app synthesised by the `cdk` command with the construct from the installed package.
 * Slow (a build, an install and five bundles): one test, one file.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const tour = tourFiles(readme);
const work = mkdtempSync(join(tmpdir(), 'switchboard-pack-'));
const project = join(work, 'team');
const bin = (name: string) => join(project, 'node_modules', '.bin', name);
let sandbox: ChildProcess | undefined;

afterAll(() => {
  sandbox?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}, 120_000);

function npm(args: string[], cwd: string) {
  return run('npm', args, { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
}

/** Types of every entry point, checked as the team's TypeScript would see them. */
const TYPES = `import { createSwitchboard, type HostAgentDefinition } from 'switchboard';
import { Switchboard, type SwitchboardProps } from 'switchboard/infra';
import { mintDevToken, type SandboxOptions, startSandbox } from 'switchboard/sandbox';
import { createClient } from 'switchboard/client';
import { type SwitchboardChat, type UseSwitchboardChatOptions, useSwitchboardChat } from 'switchboard/react';
// The component shares its name with the hook's state type: a project that uses both renames one.
import { AgentPicker, SwitchboardChat as Chat, type SwitchboardChatProps, ThreadList } from 'switchboard/react-dom';
import { SwitchboardChatTransport } from 'switchboard/ai-sdk';
import type { ChatTransport, UIMessage } from 'ai';

const agent: HostAgentDefinition = { info: { id: 'a' }, async invoke() { return { content: 'x' }; } };
createSwitchboard().registerHostAgent(agent);
const props: SwitchboardProps = { agents: './agents.ts', allowAnonymous: true };
const options: Partial<SandboxOptions> = { port: 0 };
// The hook's client is the one of 'switchboard/client': one type, from one copy of the client.
const chat: UseSwitchboardChatOptions = { client: createClient({ url: 'http://127.0.0.1:3000' }), sessionId: 's1' };
const own: UseSwitchboardChatOptions = { url: 'http://127.0.0.1:3000', sessionId: 's2', agentId: 'a' };
// The transport is the AI SDK's own ChatTransport, with the ai the team installed.
const transport: ChatTransport<UIMessage> = new SwitchboardChatTransport({ url: 'http://127.0.0.1:3000', token: 't', agentId: 'a' });
const hook: (options: UseSwitchboardChatOptions) => SwitchboardChat = useSwitchboardChat;
// The whole chat for the web takes the hook's options and its own.
const chatProps: SwitchboardChatProps = { ...chat, title: 'Support', suggestions: ['Hi'] };
const components = [Chat, ThreadList, AgentPicker];
export { Switchboard, mintDevToken, startSandbox, props, options, chat, own, hook, transport, chatProps, components };
`;

/**
 * The team's type check, with its own TypeScript: the tour's files and types.ts, strict, NodeNext, no
 * skipLibCheck; the diagnostics of those files and of every declaration file of the package.
 */
const CHECK_TYPES = `import ts from 'typescript';
const roots = ['types.ts', 'agents.ts', 'client.ts', 'app.ts'];
const program = ts.createProgram(roots, {
  noEmit: true, strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023, types: ['node'],
});
// The team's files (outside node_modules) and the package's.
const ours = program.getSourceFiles().filter((file) =>
  !file.fileName.includes('/node_modules/') || file.fileName.includes('/node_modules/switchboard/'));
const problems = [...program.getGlobalDiagnostics(), ...program.getOptionsDiagnostics(),
  ...ours.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])];
if (problems.length > 0) {
  console.log(ts.formatDiagnostics(problems, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\\n' }));
  process.exit(1);
}
console.log('checked ' + ours.filter((file) => file.isDeclarationFile).length + ' declarations');
`;

/** Starts `switchboard dev` in the project and resolves with its URL and its banner once it printed them. */
function startDev(): Promise<{ url: string; banner: string }> {
  sandbox = spawn(bin('switchboard'), ['dev', '--agents', './agents.ts', '--port', '0'], {
    cwd: project,
    env: { ...process.env, LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += String(chunk);
      const url = out.match(/HTTP API: +(http:\/\/\S+)\/api/)?.[1];
      if (url && /^ +Docs: /m.test(out)) resolve({ url, banner: out });
    };
    sandbox?.stdout?.on('data', read);
    sandbox?.stderr?.on('data', read);
    sandbox?.once('exit', (code) => reject(new Error(`switchboard dev exited (${code}): ${out}`)));
  });
}

/**
 * Runs a script to its end (killed after 90 s): what it printed, its exit code, and how long its
 * process lived after its last line of output.
 */
function runScript(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  let stdout = '';
  let stderr = '';
  let lastLineAt = performance.now();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += String(chunk);
    lastLineAt = performance.now();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += String(chunk);
  });
  return new Promise<{ stdout: string; stderr: string; code: number | null; exitAfterLastLineMs: number }>(
    (resolve) =>
      child.once('exit', (code) => {
        clearTimeout(killer);
        resolve({ stdout, stderr, code, exitAfterLastLineMs: performance.now() - lastLineAt });
      }),
  );
}

describe('the package', () => {
  it('installs from its tarball into a fresh project and runs the README tour: the agent, its approval from the client, cdk synth', async () => {
    // The README gives the tour's files; without them there is nothing to follow.
    expect([...tour.keys()]).toEqual(['agents.ts', 'tsconfig.json', 'client.ts', 'app.ts', 'cdk.json']);
    const printed = shownOutput(readme, 'npx tsx client.ts');
    expect(printed.length).toBeGreaterThan(0);

    // npm pack runs the build (prepack); the tarball is what a registry would serve. In CI the build
    // has just run (.ci/run: `npm run build`, prepack's own script, which says so in
    // SWITCHBOARD_PACKAGE_BUILT): the package is packed as it was built, not built a second time.
    const built = process.env.SWITCHBOARD_PACKAGE_BUILT === '1' ? ['--ignore-scripts'] : [];
    const { stdout: packed } = await npm(['pack', '--json', '--pack-destination', work, ...built], ROOT);
    const [tarball] = JSON.parse(packed) as { filename: string; files: { path: string }[] }[];
    expect(tarball).toBeDefined();
    const files = tarball!.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/lib/index.js',
        'dist/lib/index.d.ts',
        'dist/infra/index.js',
        'dist/sandbox/index.js',
        'dist/react/index.js',
        'dist/react/index.d.ts',
        // The chat as components, compiled from TSX, and their stylesheet.
        'dist/react-dom/index.js',
        'dist/react-dom/index.d.ts',
        'react-dom/styles.css',
        'dist/ai-sdk/index.js',
        'dist/ai-sdk/index.d.ts',
        'dist/bin/switchboard.js',
        'functions/http.ts',
        'lib/index.ts',
        // The demo page, built: `switchboard dev` serves it without its sources or a bundler.
        'dist/web/index.html',
        'dist/web/app.js',
        // The README's links and the banner's: the docs ship with the package.
        'README.md',
        'docs/agents.md',
        'docs/hosts.md',
        'docs/deployment.md',
        'docs/images/demo-page.png',
        'docs/images/demo-page-phone.png',
      ]),
    );
    const linked = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]!);
    expect(linked.filter((path) => !files.includes(path))).toEqual([]);
    expect(files.filter((path) => /^demo\/|\.test\.ts$|(^|\/)demo-stack\./.test(path))).toEqual([]);
    // The page's sources stay in the repository; the package has the page built.
    expect(files.filter((path) => path.startsWith('web/'))).toEqual([]);

    // The tour's install, as the README's block gives it: made by npm pack, copied in, then installed.
    const install = readme
      .match(/^```sh\n([\s\S]*?)^```$/gm)
      ?.find((block) => block.includes('npm pkg set type=module'));
    const step = (text: string) => install?.split('\n').findIndex((line) => line.includes(text)) ?? -1;
    expect(step('npm pack')).toBeGreaterThanOrEqual(0);
    expect(step(`cp ${tarball!.filename}`)).toBeGreaterThan(step('npm pack'));
    expect(step(`npm i ./${tarball!.filename}`)).toBeGreaterThan(step(`cp ${tarball!.filename}`));

    // The tour's install: the tarball, the construct's peers and the cdk command, at the README's
    // versions; React's types and the AI SDK, for a type check of switchboard/react and switchboard/ai-sdk.
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'team', private: true, type: 'module' }),
    );
    const deps = [
      'aws-cdk-lib',
      'constructs',
      'esbuild',
      'aws-cdk',
      'typescript',
      '@types/node',
      '@types/react',
      'ai',
      // The AI SDK's provider types import json-schema's (without skipLibCheck a team adds them too).
      '@types/json-schema',
    ].map((name) => `${name}@${manifest.devDependencies[name]}`);
    // The README's versions are the ones installed here: the CDK's parts, and TypeScript with Node's types.
    for (const dep of deps.slice(0, 6)) expect(readme).toContain(dep);
    expect(step('typescript@')).toBeGreaterThan(step(`npm i ./${tarball!.filename}`));
    await npm(
      ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball!.filename), ...deps],
      project,
    );
    for (const [name, text] of tour) writeFileSync(join(project, name), text);

    // The tour's own check, as its block gives it: `npx tsc` with the tour's tsconfig.json, on the
    // agent, the client (Node's globals: process) and the CDK app. --listFiles shows what it checked.
    expect(shownOutput(readme, 'npx tsc')).toEqual([]);
    const tsc = await run(bin('tsc'), ['--listFiles'], { cwd: project, maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the tour's npx tsc failed:\n${error.stdout ?? String(error)}`);
      },
    );
    const listed = tsc.stdout.split('\n');
    for (const name of ['agents.ts', 'client.ts', 'app.ts']) expect(listed).toContain(join(project, name));
    expect(listed.some((file) => file.includes('/node_modules/@types/node/'))).toBe(true);
    writeFileSync(join(project, 'types.ts'), TYPES);

    // The declarations: every entry point's types resolve for a NodeNext project (switchboard/react's
    // with React's types, and no DOM library: as in React Native), the package's own declarations
    // check as a project without skipLibCheck checks them, and the tour compiles. The team's own tsc
    // (its TypeScript API), asked for the diagnostics of those files only: other packages' declarations
    // are theirs to check, and checking all of aws-cdk-lib's would triple the time.
    writeFileSync(join(project, 'check-types.mjs'), CHECK_TYPES);
    const { stdout: checked } = await run(process.execPath, ['check-types.mjs'], { cwd: project }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the team's type check failed:\n${error.stdout ?? String(error)}`);
      },
    );
    // Every declaration of the package was checked: dist's, one per module of each entry point.
    expect(Number(checked.match(/checked (\d+) declarations/)?.[1])).toBeGreaterThan(50);

    // The tour's agent in the bin's sandbox, with a token of the bin's token command.
    const { url, banner } = await startDev();
    // The banner points to the docs the package ships, where they are in the team's project.
    const pointed = [...banner.matchAll(/(\S*docs\/\S*)/g)].map((m) => m[1]!.replace(/[()]/g, ''));
    expect(pointed).toEqual(['node_modules/switchboard/docs/ag-ui.md', 'node_modules/switchboard/docs/']);
    for (const path of pointed) expect(existsSync(join(project, path))).toBe(true);
    const { stdout: minted } = await run(bin('switchboard'), ['token', '--user', 'alice'], { cwd: project });
    const token = minted.trim();
    const response = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'packed', agent_id: 'refunds', content: 'hello', wait_ms: 20_000 }),
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('Which order? Give me its number.');
    expect(await (await fetch(`${url}/`)).text()).toContain('<div id="root">');
    // The page's script, as the build left it: React inside, nothing for the browser to fetch elsewhere.
    const script = await fetch(`${url}/app.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('useSyncExternalStore');
    // Its stylesheet: the components' own, as the package ships it.
    const styles = await fetch(`${url}/styles.css`);
    expect(styles.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await styles.text()).toContain('.sb-chat');

    // The tour's client script: a message, the approval it waits on, the answer; it prints what the
    // README shows, and its process ends soon after its last line (client.close() ends everything the
    // client started). Over the WebSocket, and over the long poll it falls back to without one (Node 20).
    const env = { ...process.env, SWITCHBOARD_URL: url, TOKEN: token };
    for (const transport of [env, { ...env, NODE_OPTIONS: '--no-experimental-websocket' }]) {
      const hosted = await runScript(bin('tsx'), ['client.ts'], { cwd: project, env: transport });
      expect(hosted.code, hosted.stderr).toBe(0);
      expect(hosted.stdout.trim().split('\n')).toEqual(printed);
      expect(hosted.exitAfterLastLineMs).toBeLessThan(5_000);
    }
    sandbox?.kill('SIGTERM');

    // The tour's CDK app, synthesised by the cdk command: the construct bundles the tour's agents.
    const synth = await run(bin('cdk'), ['synth', '--quiet'], {
      cwd: project,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    // The tour's cdk.json sets the feature flags aws-cdk-lib recommends: the CLI has nothing to warn of.
    expect(`${synth.stdout}${synth.stderr}`).not.toMatch(/feature flags/i);
    const template = JSON.parse(readFileSync(join(project, 'cdk.out', 'Refunds.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string }>;
      Outputs: Record<string, unknown>;
    };
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(6); // http, ws, worker, sweep, AG-UI and the $connect authoriser
    expect(Object.keys(template.Outputs)).toEqual(
      expect.arrayContaining(['SwitchboardHttpApiUrl', 'SwitchboardWebSocketUrl', 'SwitchboardAgUiUrl']),
    );
    const bundles = readdirSync(join(project, 'cdk.out'))
      .map((dir) => join(project, 'cdk.out', dir, 'index.mjs'))
      .filter((file) => existsSync(file));
    expect(bundles).toHaveLength(6);
    const withAgent = bundles.filter((file) =>
      readFileSync(file, 'utf8').includes('I can refund it once you approve.'),
    );
    expect(withAgent).toHaveLength(5); // http, ws, worker, sweep and AG-UI: each imports #agents
    // The agents module's 'switchboard' is the sources the functions import, not a second copy from dist/.
    const maps = join(project, 'cdk.out', 'switchboard-source-maps');
    const sources = readdirSync(maps, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.map'))
      .flatMap(
        (file) => (JSON.parse(readFileSync(join(maps, file), 'utf8')) as { sources: string[] }).sources,
      );
    expect(sources.some((source) => source.includes('switchboard/lib/agents/'))).toBe(true);
    expect(sources.filter((source) => source.includes('switchboard/dist/'))).toEqual([]);
  }, 540_000);
});
