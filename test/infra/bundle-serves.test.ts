import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstRequest, type LocalAws, startLocalAws } from '../../bench/first-request.ts';
import { bundleFunction, ENTRY_FILE } from '../../infra/bundling.ts';

/**
 * The HTTP function as the stack deploys it (bundled, minified, Node's built-ins loaded with
 * `require`, the table client in its entry code), loaded by a Node process as Lambda loads it and
 * invoked with an API Gateway event (bench/first-request.ts, which the bench times). Its AWS calls go,
 * through the SDK's and the table client's endpoint variables, to a local server that answers as
 * DynamoDB and Secrets Manager do and checks each table call's signature with the SDK's signer.
 */

const DEMO_AGENTS = fileURLToPath(new URL('../../demo/agents.ts', import.meta.url));

let dir: string;
let aws: LocalAws;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-bundle-serves-'));
  await bundleFunction('http', DEMO_AGENTS, dir);
  aws = await startLocalAws();
}, 120_000);

afterAll(async () => {
  await aws?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the bundled HTTP function', () => {
  it('answers a request, its table calls signed and sent over Node’s http module as the bundle loads it', async () => {
    const answer = await firstRequest(pathToFileURL(join(dir, ENTRY_FILE)).href, aws);
    // Warnings (a Node or SDK notice) may come; an error may not.
    expect(answer.stderr).not.toMatch(/Error/);
    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'session_not_found' } });
    const targets = aws.calls.map((c) => c.target);
    expect(targets).toContain('secretsmanager.GetSecretValue');
    expect(targets).toContain('DynamoDB_20120810.GetItem');
    expect(aws.calls.filter((c) => c.refused)).toEqual([]);
  });
});
