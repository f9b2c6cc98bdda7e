import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SwitchboardBundler } from '../../infra/functions.ts';
import { checkSwitchboardProps } from '../../infra/props.ts';
import { settingsFromEnv } from '../../lib/boot/index.ts';
import { SETTINGS_FILE } from '../../lib/config/index.ts';
import { FIXTURE_AGENTS, LARGE_HOST_TOOLS, TEST_AUTH } from './template-helpers.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('settings delivered in the bundle', () => {
  it('the construct writes the settings beside the code and the function reads them from there at start-up', () => {
    const hostTools = LARGE_HOST_TOOLS;
    const { resolved } = checkSwitchboardProps({
      agents: FIXTURE_AGENTS,
      auth: TEST_AUTH,
      settings: { runs: { leaseMs: 120_000 }, tools: { hostTools } },
    });
    // The asset's bundling, as the CDK runs it at synth (the authoriser: the quickest build).
    const root = mkdtempSync(join(tmpdir(), 'switchboard-asset-'));
    dirs.push(root);
    new SwitchboardBundler('authorizer', resolved.agents, resolved.settingsJson!).tryBundle(root);
    expect(readdirSync(root)).toContain(SETTINGS_FILE);
    expect(readFileSync(join(root, SETTINGS_FILE), 'utf8')).toBe(resolved.settingsJson);

    // In Lambda: the environment the construct sets, the task root where the asset is unpacked.
    const settings = settingsFromEnv({ SWITCHBOARD_SETTINGS_FILE: SETTINGS_FILE, LAMBDA_TASK_ROOT: root });
    expect(settings.runs.leaseMs).toBe(120_000);
    expect(settings.tools.hostTools.map((t) => t.name)).toEqual(hostTools.map((t) => t.name));
    // Defaults still apply to what the file does not set.
    expect(settings.stream.coalesceMs).toBe(250);
  });

  it('a missing or broken settings file stops the function at start-up, naming the file', () => {
    const root = mkdtempSync(join(tmpdir(), 'switchboard-asset-'));
    dirs.push(root);
    const env = { SWITCHBOARD_SETTINGS_FILE: SETTINGS_FILE, LAMBDA_TASK_ROOT: root };
    expect(() => settingsFromEnv(env)).toThrow(
      /SWITCHBOARD_SETTINGS_FILE: .*switchboard-settings\.json cannot be read/,
    );
  });
});
