import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionRef, withScope } from '../../lib/auth/index.ts';
import { FUNCTION_PERMISSIONS, type Permissions } from '../../lib/config/index.ts';
import { secretArn } from '../../sandbox/aws/index.ts';
import { secretsOperation } from '../../sandbox/aws/operations.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { type SecretsManagerEmulator, startSecretsManager } from '../../sandbox/secrets-manager.ts';
import { SANDBOX_CREDENTIALS, SANDBOX_NAMES, SANDBOX_REGION } from '../../sandbox/services.ts';
import { testApp } from '../support/agents.ts';
import { api, testSandbox } from '../support/sandbox.ts';

const NAME = SANDBOX_NAMES.refKeySecret;
const ARN = secretArn(NAME, SANDBOX_REGION);
const names = { ...SANDBOX_NAMES, region: SANDBOX_REGION };

/** The error a promise fails with: its name, HTTP status and message. */
async function failure(call: Promise<unknown>): Promise<{ name?: string; status?: number; message: string }> {
  try {
    await call;
  } catch (error) {
    const e = error as { name?: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
  }
  throw new Error('expected the call to fail');
}

describe('the sandbox’s Secrets Manager', () => {
  let emulator: SecretsManagerEmulator;
  let client: SecretsManagerClient;
  beforeAll(async () => {
    emulator = await startSecretsManager({ name: NAME, arn: ARN, value: 'the value' });
    client = new SecretsManagerClient({
      endpoint: emulator.url,
      region: SANDBOX_REGION,
      credentials: SANDBOX_CREDENTIALS,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await emulator?.close();
  });

  it('answers GetSecretValue by name, ARN or partial ARN with the current version, as AWS does', async () => {
    for (const SecretId of [NAME, ARN, ARN.slice(0, -'-abcdef'.length)]) {
      const got = await client.send(new GetSecretValueCommand({ SecretId }));
      expect(got, SecretId).toMatchObject({
        ARN,
        Name: NAME,
        SecretString: 'the value',
        VersionStages: ['AWSCURRENT'],
      });
      expect(got.VersionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(got.CreatedDate).toBeInstanceOf(Date);
    }
    const current = await client.send(
      new GetSecretValueCommand({ SecretId: NAME, VersionStage: 'AWSCURRENT' }),
    );
    expect(current.SecretString).toBe('the value');
  });

  it('answers any other secret or version with ResourceNotFoundException', async () => {
    for (const input of [
      { SecretId: 'another-secret' },
      { SecretId: `${ARN}x` },
      { SecretId: NAME, VersionStage: 'AWSPREVIOUS' },
      { SecretId: NAME, VersionId: '00000000-0000-0000-0000-000000000000' },
    ]) {
      const { name, status, message } = await failure(client.send(new GetSecretValueCommand(input)));
      expect({ name, status }, JSON.stringify(input)).toEqual({
        name: 'ResourceNotFoundException',
        status: 400,
      });
      expect(message).toContain("Secrets Manager can't find the specified secret");
    }
  });

  it('judges a call by the secret it names, as IAM does: the key’s secret by any of its names, nothing else', () => {
    const call = (SecretId: string) =>
      secretsOperation('secretsmanager.GetSecretValue', Buffer.from(JSON.stringify({ SecretId })), names);
    for (const id of [NAME, ARN, ARN.slice(0, -'-abcdef'.length)])
      expect(call(id)).toEqual({
        service: 'secretsmanager',
        action: 'secretsmanager:GetSecretValue',
        kind: 'refKeySecret',
        arn: ARN,
      });
    expect(call('another-secret').kind).toBeUndefined();
    expect(call(ARN.replace(NAME, 'another-secret')).kind).toBeUndefined();
  });
});

describe('the functions read the session-ref key from its secret, as on AWS', () => {
  let dataDir: string;
  let sandbox: Sandbox;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'switchboard-secrets-'));
    // No key given: the sandbox keeps its own in the data folder, and its secret holds that one.
    sandbox = await testSandbox({ app: testApp().app, dataDir, refKey: undefined });
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the HTTP, WebSocket and AG-UI functions read the data folder’s key through their fronts', async () => {
    const kept = new TextEncoder().encode((await readFile(join(dataDir, 'ref-key'), 'utf8')).trim());
    for (const fn of ['http', 'ws', 'agui'] as const)
      expect(await sandbox.runtimes[fn].refKey(), fn).toEqual(kept);
    expect(await sandbox.runtime.refKey()).toEqual(kept);
  });

  it('a session’s ref is keyed with the secret’s key', async () => {
    const kept = new TextEncoder().encode((await readFile(join(dataDir, 'ref-key'), 'utf8')).trim());
    const chat = { id: 'keyed-1', session_id: 'keyed', agent_id: 'picky', content: 'hello' };
    expect((await api(sandbox.url, 'POST', '/api/chat', chat)).status).toBe(202);
    const session = await api(sandbox.url, 'GET', '/api/sessions/keyed');
    expect(session.status).toBe(200);
    expect(session.json.ref).toBe(sessionRef(withScope(kept, { user: 'anonymous', data: {} }), 'keyed'));
  });

  it('the worker, the sweep and the $connect authoriser are not told where the key is', async () => {
    for (const fn of ['worker', 'sweep', 'authorizer'] as const) {
      const { message } = await failure(sandbox.runtimes[fn].refKey());
      expect(message, fn).toContain('No session-ref key');
    }
  });
});

describe('a role without secretsmanager:GetSecretValue', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    const withoutKey: Permissions = {
      ...FUNCTION_PERMISSIONS,
      http: FUNCTION_PERMISSIONS.http.filter((grant) => grant.resource !== 'refKeySecret'),
    };
    sandbox = await testSandbox({ app: testApp().app, permissions: withoutKey });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('is refused with the AccessDeniedException IAM answers, naming the action and the secret', async () => {
    const { name, status, message } = await failure(sandbox.runtimes.http.refKey());
    expect({ name, status }).toEqual({ name: 'AccessDeniedException', status: 400 });
    expect(message).toContain('is not authorized to perform: secretsmanager:GetSecretValue');
    expect(message).toContain(`on resource: ${ARN}`);
  });

  it('fails every request of that function, while the functions that keep the grant read the key', async () => {
    const chat = { id: 'no-key-1', session_id: 'no-key', agent_id: 'picky', content: 'hello' };
    const refused = await api(sandbox.url, 'POST', '/api/chat', chat);
    expect(refused.status).toBe(500);
    expect(refused.json.error).toMatchObject({ code: 'internal_error' });
    expect(await sandbox.runtimes.ws.refKey()).toEqual(await sandbox.runtime.refKey());
  });
});
