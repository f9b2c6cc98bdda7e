import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AwsJsonClient, TableClient } from '../../lib/aws/index.ts';
import { SECRETS_MANAGER } from '../../lib/aws/secrets.ts';

/**
 * The endpoint each client of lib/aws calls, compared with the endpoint the AWS SDK's own clients
 * resolve for the same region and settings (read the same way: the client's config, the environment,
 * the shared config file's profile): a region of every partition the SDK knows, their global names, a
 * region no partition names, FIPS pseudo-regions, and regions that cannot be placed.
 */

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

/** What the SDK and lib/aws read; each test sets its own. */
const SETTINGS = [
  'AWS_USE_FIPS_ENDPOINT',
  'AWS_USE_DUALSTACK_ENDPOINT',
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  'AWS_LAMBDA_FUNCTION_NAME',
];
let saved: Record<string, string | undefined> = {};
let dir: string;
beforeEach(() => {
  saved = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));
  for (const name of SETTINGS) delete process.env[name];
  dir = mkdtempSync(join(tmpdir(), 'aws-endpoints-'));
  // No profile of the machine's own files is read.
  process.env.AWS_CONFIG_FILE = join(dir, 'none');
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'none');
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The endpoint of a call, or the message of the error that stops it. */
async function outcome(resolve: () => Promise<string>): Promise<string> {
  try {
    return new URL(await resolve()).origin;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** The endpoint the SDK's client sends a call to: the request as built, stopped before it is signed. */
async function sdkEndpoint(client: DynamoDBClient | SecretsManagerClient, send: () => Promise<unknown>) {
  // Both clients' stacks take the same build-step middleware; the cast only joins their types.
  (client as DynamoDBClient).middlewareStack.add(
    () => async (args) => {
      const { protocol, hostname, port } = args.request as {
        protocol: string;
        hostname: string;
        port?: number;
      };
      throw Object.assign(new Error('stopped'), {
        endpoint: `${protocol}//${hostname}${port ? `:${port}` : ''}`,
      });
    },
    { step: 'build' },
  );
  try {
    await send();
    throw new Error('the call was not stopped');
  } catch (error) {
    const stopped = error as Error & { endpoint?: string };
    if (stopped.endpoint) return stopped.endpoint;
    throw error;
  } finally {
    client.destroy();
  }
}

type Options = { useFipsEndpoint?: boolean; useDualstackEndpoint?: boolean; endpoint?: string };

/** Both clients of one service, for one region: [ours, the SDK's]. */
async function both(service: 'dynamodb' | 'secretsmanager', region: string, options: Options = {}) {
  const config = { region, credentials, ...options };
  const ours = outcome(async () => {
    const client =
      service === 'dynamodb'
        ? new TableClient({ ...config, maxAttempts: 1 })
        : new AwsJsonClient(SECRETS_MANAGER, { ...config, maxAttempts: 1 });
    try {
      return await client.endpoint();
    } finally {
      client.destroy();
    }
  });
  const sdk = outcome(async () => {
    if (service === 'dynamodb') {
      const client = new DynamoDBClient(config);
      return sdkEndpoint(client, () => client.send(new GetItemCommand({ TableName: 't', Key: {} })));
    }
    const client = new SecretsManagerClient(config);
    return sdkEndpoint(client, () => client.send(new GetSecretValueCommand({ SecretId: 's' })));
  });
  return [await ours, await sdk];
}

const REGIONS = [
  // aws, and a region no partition names (the SDK places it in aws)
  'us-east-1',
  'eu-west-1',
  'ap-southeast-7',
  'aws-global',
  'xx-nowhere-1',
  // aws-cn
  'cn-north-1',
  'cn-northwest-1',
  'aws-cn-global',
  // aws-us-gov (DynamoDB's FIPS endpoint there is its usual name)
  'us-gov-west-1',
  'us-gov-east-1',
  'aws-us-gov-global',
  // aws-iso, aws-iso-b, aws-iso-e, aws-iso-f
  'us-iso-east-1',
  'us-iso-west-1',
  'aws-iso-global',
  'us-isob-east-1',
  'aws-iso-b-global',
  'eu-isoe-west-1',
  'aws-iso-e-global',
  'us-isof-south-1',
  'us-isof-east-1',
  'aws-iso-f-global',
  // aws-eusc
  'eusc-de-east-1',
  // FIPS pseudo-regions, DynamoDB local, and regions that cannot be placed
  'us-east-1-fips',
  'fips-us-gov-west-1',
  'local',
  '',
  'us_east_1',
  'eu-west-1.',
  '-eu-west-1',
];

const VARIANTS = [
  ['neither', undefined, undefined],
  ['FIPS', 'true', 'false'],
  ['dual-stack', 'false', 'true'],
  ['FIPS and dual-stack', 'true', 'true'],
] as const;

describe('the AWS clients’ endpoints are the SDK’s', () => {
  for (const service of ['dynamodb', 'secretsmanager'] as const) {
    it.each(VARIANTS)(
      `${service}, %s from the environment, in every partition`,
      async (_name, fips, dual) => {
        if (fips !== undefined) process.env.AWS_USE_FIPS_ENDPOINT = fips;
        if (dual !== undefined) process.env.AWS_USE_DUALSTACK_ENDPOINT = dual;
        for (const region of REGIONS) {
          const [ours, sdk] = await both(service, region);
          expect(ours, `${service} in "${region}"`).toBe(sdk);
        }
      },
    );
  }

  it('reads FIPS and dual-stack from the profile named in AWS_PROFILE, the environment first', async () => {
    writeFileSync(
      join(dir, 'config'),
      '[default]\nuse_fips_endpoint = false\n[profile fed]\nuse_fips_endpoint = true\nuse_dualstack_endpoint = true\n',
    );
    process.env.AWS_CONFIG_FILE = join(dir, 'config');
    const seen: string[][] = [];
    seen.push(await both('dynamodb', 'us-gov-west-1'));
    process.env.AWS_PROFILE = 'fed';
    seen.push(await both('dynamodb', 'us-gov-west-1'));
    seen.push(await both('secretsmanager', 'cn-north-1'));
    process.env.AWS_USE_DUALSTACK_ENDPOINT = 'false';
    seen.push(await both('dynamodb', 'eu-west-1'));
    expect(seen).toEqual([
      ['https://dynamodb.us-gov-west-1.amazonaws.com', 'https://dynamodb.us-gov-west-1.amazonaws.com'],
      ['https://dynamodb-fips.us-gov-west-1.api.aws', 'https://dynamodb-fips.us-gov-west-1.api.aws'],
      [
        'https://secretsmanager-fips.cn-north-1.api.amazonwebservices.com.cn',
        'https://secretsmanager-fips.cn-north-1.api.amazonwebservices.com.cn',
      ],
      ['https://dynamodb-fips.eu-west-1.amazonaws.com', 'https://dynamodb-fips.eu-west-1.amazonaws.com'],
    ]);
  });

  it('on Lambda, decides from the environment alone: the shared config file is read only where one is named', async () => {
    const home = process.env.HOME;
    mkdirSync(join(dir, '.aws'));
    writeFileSync(join(dir, '.aws', 'config'), '[default]\nuse_fips_endpoint = true\n');
    delete process.env.AWS_CONFIG_FILE;
    process.env.HOME = join(dir);
    try {
      const [offLambda] = await both('dynamodb', 'eu-west-1');
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'switchboard-http';
      const [onLambda] = await both('dynamodb', 'eu-west-1');
      expect([offLambda, onLambda]).toEqual([
        'https://dynamodb-fips.eu-west-1.amazonaws.com',
        'https://dynamodb.eu-west-1.amazonaws.com',
      ]);
    } finally {
      if (home === undefined) delete process.env.HOME;
      else process.env.HOME = home;
    }
  });

  it('takes FIPS and dual-stack from the client’s config before the environment', async () => {
    process.env.AWS_USE_FIPS_ENDPOINT = 'true';
    const options = { useFipsEndpoint: false, useDualstackEndpoint: true };
    expect(await both('dynamodb', 'ap-southeast-7', options)).toEqual([
      'https://dynamodb.ap-southeast-7.api.aws',
      'https://dynamodb.ap-southeast-7.api.aws',
    ]);
  });

  it('refuses FIPS or dual-stack with an endpoint of its own, as the SDK’s rules do', async () => {
    const endpoint = 'http://127.0.0.1:8000';
    expect(await both('dynamodb', 'eu-west-1', { endpoint })).toEqual([endpoint, endpoint]);
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    expect(await both('dynamodb', 'eu-west-1')).toEqual([endpoint, endpoint]);
    process.env.AWS_USE_FIPS_ENDPOINT = 'true';
    const refused = 'error: Invalid Configuration: FIPS and custom endpoint are not supported';
    expect(await both('dynamodb', 'eu-west-1')).toEqual([refused, refused]);
    expect(await both('secretsmanager', 'eu-west-1', { endpoint })).toEqual([refused, refused]);
  });

  it('names the region it cannot place, and a missing one, as the SDK does', async () => {
    expect(await both('dynamodb', '')).toEqual(['error: Region is missing', 'error: Region is missing']);
    const refused = 'error: Region not accepted: region="eu west 1" is not a valid hostname component.';
    expect(await both('secretsmanager', 'eu west 1')).toEqual([refused, refused]);
  });
});
