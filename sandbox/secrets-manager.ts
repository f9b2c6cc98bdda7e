import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readAll } from './aws/forward.ts';
import { namesSecret } from './aws/operations.ts';
import { answerJson, startJsonService } from './json-service.ts';

/** A secret the emulator holds. */
export interface EmulatedSecret {
  /** Its name, as a stack's generated secret has one. */
  name: string;
  /** Its full ARN (the name, a hyphen and six characters), what the construct hands the functions. */
  arn: string;
  value: string;
}

/** A running Secrets Manager. */
export interface SecretsManagerEmulator {
  url: string;
  close(): Promise<void>;
}

/** The stage every read without one gets: a secret that is never rotated has only this version. */
const CURRENT = 'AWSCURRENT';

const answer = (res: ServerResponse, status: number, body: unknown, errorType?: string) =>
  answerJson(res, status, body, errorType, 'Message');

/**
 * A local Secrets Manager holding some secrets (the session-ref key, and the endpoint keys of model
 * agents the sandbox was given): `GetSecretValue` (JSON 1.1, `X-Amz-Target:
 * secretsmanager.GetSecretValue`) answers a secret's current version as AWS does, any other id or
 * version `ResourceNotFoundException`. Other operations are refused as unknown: the runtime only
 * reads secrets, and the sandbox makes them itself.
 */
export async function startSecretsManager(
  secrets: EmulatedSecret | readonly EmulatedSecret[],
): Promise<SecretsManagerEmulator> {
  const held = Array.isArray(secrets) ? secrets : [secrets as EmulatedSecret];
  const versionId = randomUUID();
  const created = Math.floor(Date.now() / 1000);

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target !== 'secretsmanager.GetSecretValue')
      return answer(res, 400, { message: `Unknown operation ${target}` }, 'UnknownOperationException');
    let input: { SecretId?: unknown; VersionId?: unknown; VersionStage?: unknown };
    try {
      input = JSON.parse(body.toString('utf8')) as typeof input;
    } catch {
      return answer(res, 400, { message: 'Could not parse the request body.' }, 'SerializationException');
    }
    if (typeof input.SecretId !== 'string' || input.SecretId === '')
      return answer(
        res,
        400,
        {
          message:
            "1 validation error detected: Value at 'secretId' failed to satisfy constraint: Member must not be null",
        },
        'ValidationException',
      );
    const notFound = (message: string) => answer(res, 400, { message }, 'ResourceNotFoundException');
    const secret = held.find((one) => namesSecret(input.SecretId as string, one));
    if (!secret) return notFound("Secrets Manager can't find the specified secret.");
    if (input.VersionId !== undefined && input.VersionId !== versionId)
      return notFound(
        `Secrets Manager can't find the specified secret value for VersionId: ${String(input.VersionId)}`,
      );
    if (input.VersionStage !== undefined && input.VersionStage !== CURRENT)
      return notFound(
        `Secrets Manager can't find the specified secret value for staging label: ${String(input.VersionStage)}`,
      );
    answer(res, 200, {
      ARN: secret.arn,
      Name: secret.name,
      SecretString: secret.value,
      VersionId: versionId,
      VersionStages: [CURRENT],
      CreatedDate: created,
    });
  }

  return startJsonService(serve, 'InternalServiceError');
}
