import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { functionBuildOptions } from '../../infra/bundling.ts';
import { LAMBDA_RUNTIME } from '../../infra/functions.ts';

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
