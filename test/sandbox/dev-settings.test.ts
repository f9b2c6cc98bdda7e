import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'switchboard-settings-'));
const run = promisify(execFile);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `switchboard dev` with a settings file: how it ends (it is expected to stop before it serves). */
async function devWith(settings: string): Promise<{ code: number; stderr: string }> {
  const file = join(dir, `settings-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, settings);
  const args = ['--import', 'tsx', 'bin/switchboard.ts', 'dev', '--agents', 'demo/agents.ts'];
  try {
    await run(process.execPath, [...args, '--settings', file, '--port', '0'], { cwd: root, timeout: 60_000 });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, stderr: failed.stderr ?? '' };
  }
}

describe('switchboard dev --settings', () => {
  it('stops at start-up on a bad setting, naming the field, with no stack trace', async () => {
    const { code, stderr } = await devWith('{"stream":{"coalesceMS":5}}');
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid settings at stream.coalesceMS: Unknown field "coalesceMS".');
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 90_000);

  it('refuses a file that is not a JSON object as a usage mistake (exit 2)', async () => {
    const { code, stderr } = await devWith('[1, 2]');
    expect(code).toBe(2);
    expect(stderr).toContain('must hold a JSON object');
  }, 90_000);
});
