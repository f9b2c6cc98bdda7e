import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bundleFunction,
  ENTRY_FILE,
  functionBuildOptions,
  SWITCHBOARD_ENTRIES,
} from '../../infra/bundling.ts';
import { bundleTarget, LAMBDA_RUNTIME, LAMBDA_RUNTIMES } from '../../infra/functions.ts';
import { checkSwitchboardProps, type SwitchboardNodeRuntime } from '../../infra/props.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  type Resources,
  SYNTH_TIMEOUT_MS,
  TEST_AUTH,
} from './template-helpers.ts';

const DEMO_AGENTS = fileURLToPath(new URL('../../demo/agents.ts', import.meta.url));

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
// The Node that `npm ci` installs for the npm scripts: what `npm test` and `npm start` run on.
const pinned = manifest.devDependencies.node ?? '';
const major = pinned.split('.')[0];
const CHECK = fileURLToPath(new URL('../../bin/check-node.mjs', import.meta.url));
const checkNode = (version: string) => spawnSync(process.execPath, [CHECK, version], { encoding: 'utf8' });

describe('the Node the functions deploy to is the one the suite runs on', () => {
  it('the Lambda runtime and the bundles target the major of the pinned Node', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(LAMBDA_RUNTIME.name).toBe(`nodejs${major}.x`);
    expect(functionBuildOptions('worker', 'agents.ts', 'out').target).toBe(`node${major}`);
  });

  it("runs on that major: vitest's workers are started with the parent's Node", () => {
    expect(process.versions.node.split('.')[0]).toBe(major);
  });

  it("the pinned Node satisfies engines, which the npm scripts' check enforces in one line", () => {
    expect(checkNode(pinned).status).toBe(0);
    for (const version of ['22.12.0', '24.0.0']) expect(checkNode(version).status).toBe(0);
    for (const version of ['20.20.2', '22.11.0', '23.9.0']) {
      const { status, stderr } = checkNode(version);
      expect(status).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringContaining(`Switchboard needs Node ${manifest.engines.node}, not ${version}`),
      ]);
    }
  });
});

/** Every function's runtime in a template. */
function runtimesOf(resources: Resources): unknown[] {
  return idsOfType(resources, 'AWS::Lambda::Function').map((id) => resources[id]?.Properties?.Runtime);
}

/**
 * A Node 24 to load the bundles with: `SWITCHBOARD_NODE24` (a path to its `node`), or this process when
 * the suite itself runs on 24. CI sets it (.ci/run); without it the load test says it was skipped.
 */
const NODE24 =
  process.env.SWITCHBOARD_NODE24 ?? (process.versions.node.startsWith('24.') ? process.execPath : undefined);

/** What the handlers read from the environment at import, dummies: importing makes no call. */
const LAMBDA_ENV: Record<string, string> = {
  SWITCHBOARD_TABLE: 'table',
  SWITCHBOARD_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/turns.fifo',
  SWITCHBOARD_BUCKET: 'bucket',
  SWITCHBOARD_WS_ENDPOINT: 'https://ws.execute-api.us-east-1.amazonaws.com/live',
  SWITCHBOARD_AUTH_ISSUER: 'https://issuer.example.com',
  SWITCHBOARD_AUTH_AUDIENCE: '["hosts"]',
  LOG_LEVEL: 'ERROR',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
};

describe('nodejs24.x, the other runtime a stack may choose', () => {
  let node24: Resources;
  let node22: Resources;
  beforeAll(() => {
    const stack = newStack();
    new Switchboard(stack, 'Node24', { agents: FIXTURE_AGENTS, auth: TEST_AUTH, nodeRuntime: 'nodejs24.x' });
    new Switchboard(stack, 'Pinned', { agents: FIXTURE_AGENTS, auth: TEST_AUTH });
    const all = Template.fromStack(stack).toJSON().Resources as Resources;
    const of = (prefix: string) =>
      Object.fromEntries(Object.entries(all).filter(([id]) => id.startsWith(prefix))) as Resources;
    node24 = of('Node24');
    node22 = of('Pinned');
  }, SYNTH_TIMEOUT_MS);

  it('runs every function of the stack on nodejs24.x; the default stays the pinned Node', () => {
    expect(runtimesOf(node24)).toHaveLength(6);
    expect(new Set(runtimesOf(node24))).toEqual(new Set(['nodejs24.x']));
    expect(new Set(runtimesOf(node22))).toEqual(new Set([`nodejs${major}.x`]));
    expect(LAMBDA_RUNTIMES['nodejs24.x'].name).toBe('nodejs24.x');
  });

  it('bundles for that Node: esbuild targets node24', () => {
    expect(bundleTarget('nodejs24.x')).toBe('node24');
    expect(bundleTarget('nodejs22.x')).toBe(`node${major}`);
  });

  it('refuses a runtime it is not tested on, naming the prop', () => {
    const { errors } = checkSwitchboardProps({
      agents: FIXTURE_AGENTS,
      allowAnonymous: true,
      nodeRuntime: 'nodejs20.x' as SwitchboardNodeRuntime,
    });
    expect(errors).toEqual([expect.stringContaining('nodeRuntime must be one of nodejs22.x, nodejs24.x')]);
  });

  it.skipIf(!NODE24)(
    'each function built for node24 loads on Node 24 and exports its handler',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'switchboard-node24-'));
      try {
        for (const entry of SWITCHBOARD_ENTRIES) {
          const outdir = join(dir, entry);
          await bundleFunction(entry, DEMO_AGENTS, outdir, { target: bundleTarget('nodejs24.x') });
          const url = pathToFileURL(join(outdir, ENTRY_FILE)).href;
          // Lambda's runtime defines `awslambda` before it loads a handler (the AG-UI bundle uses it).
          const script = `globalThis.awslambda ??= { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };
const m = await import(${JSON.stringify(url)});
process.stdout.write(process.versions.node.split('.')[0] + ' ' + typeof m.handler);`;
          const run = spawnSync(NODE24 as string, ['--input-type=module', '-e', script], {
            env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV },
            encoding: 'utf8',
          });
          expect(run.stderr, entry).toBe('');
          expect(run.stdout, entry).toBe('24 function');
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    SYNTH_TIMEOUT_MS,
  );
});
