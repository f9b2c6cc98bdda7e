import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { FunctionName, ResourceKind } from '../../lib/config/index.ts';
import { FIXTURE_AGENTS } from './template-helpers.ts';

/** An IAM action on a kind of resource, as `action@kind`. */
export type Need = `${string}@${ResourceKind}`;

/**
 * What each table command (lib/aws/table) and AWS SDK command (or presigner) that Switchboard's code
 * uses needs from IAM. A command that
 * appears in a bundle and is missing here fails the test that reads it: map it when you add it.
 */
const COMMAND_NEEDS: Record<string, readonly Need[]> = {
  GetItem: ['dynamodb:GetItem@table'],
  PutItem: ['dynamodb:PutItem@table'],
  UpdateItem: ['dynamodb:UpdateItem@table'],
  DeleteItem: ['dynamodb:DeleteItem@table'],
  Query: ['dynamodb:Query@table'],
  Scan: ['dynamodb:Scan@table'],
  BatchWriteItem: ['dynamodb:BatchWriteItem@table'],
  BatchGetItem: ['dynamodb:BatchGetItem@table'],
  GetObjectCommand: ['s3:GetObject@objects'],
  // HeadObject is authorised as GetObject.
  HeadObjectCommand: ['s3:GetObject@objects'],
  PutObjectCommand: ['s3:PutObject@objects'],
  // A presigned URL carries the signer's rights: the PUT it signs needs s3:PutObject.
  getSignedUrl: ['s3:PutObject@objects'],
  DeleteObjectsCommand: ['s3:DeleteObject@objects'],
  DeleteObjectCommand: ['s3:DeleteObject@objects'],
  ListObjectsV2Command: ['s3:ListBucket@bucket'],
  // The paginator sends ListObjectsV2Command inside the SDK, where the bundle does not show it.
  paginateListObjectsV2: ['s3:ListBucket@bucket'],
  SendMessageCommand: ['sqs:SendMessage@queue'],
  ChangeMessageVisibilityCommand: ['sqs:ChangeMessageVisibility@queue'],
  GetQueueAttributesCommand: ['sqs:GetQueueAttributes@queue'],
  ChangeMessageVisibilityBatchCommand: ['sqs:ChangeMessageVisibility@queue'],
  PostToConnectionCommand: ['execute-api:ManageConnections@connections'],
  DeleteConnectionCommand: ['execute-api:ManageConnections@connections'],
  GetConnectionCommand: ['execute-api:ManageConnections@connections'],
  PutEventsCommand: ['events:PutEvents@eventBus'],
};

/**
 * Commands every runtime holds but sends only when its code calls one method, with what each caller
 * needs: `createRuntime` builds `refKey()` and `secret()` for every function, and only those read a
 * secret (lib/aws/secrets.ts). `refKey()` reads the session-ref key; `secret()` is handed to the
 * agents as `io.secret` (lib/runs), which reads model agents' endpoint keys. A bundle that calls
 * neither cannot send the command, whatever else it bundles.
 */
const SENT_THROUGH: Record<string, readonly (readonly [RegExp, Need])[]> = {
  GetSecretValueCommand: [
    [/\.refKey\(\)/, 'secretsmanager:GetSecretValue@refKeySecret'],
    [/\bsecret: rt\.secret\b/, 'secretsmanager:GetSecretValue@modelSecrets'],
  ],
};

/**
 * What a function needs that its own code does not call: Lambda's SQS event source polls the queue
 * with the worker's role (CDK's `SqsEventSource` grants these, `GetQueueUrl` included).
 */
export const EVENT_SOURCE_NEEDS: Partial<Record<FunctionName, readonly Need[]>> = {
  worker: [
    'sqs:ReceiveMessage@queue',
    'sqs:DeleteMessage@queue',
    'sqs:GetQueueAttributes@queue',
    'sqs:ChangeMessageVisibility@queue',
    'sqs:GetQueueUrl@queue',
  ],
};

/**
 * The SDK names a bundle really uses: imported and referenced again, not only imported; and the calls
 * Switchboard sends with its own client (lib/aws): the table's commands it creates, and GetSecretValue.
 */
function usedSdkNames(code: string): string[] {
  const used = new Set<string>();
  // The table's commands (lib/aws/table), named for their operations; a bundle may number a name.
  for (const match of code.matchAll(
    /\bnew ((?:Get|Put|Update|Delete|BatchGet|BatchWrite)Item|Query|Scan)\d*\(/g,
  )) {
    used.add(match[1] as string);
  }
  // readSecret (lib/aws/secrets.ts) sends GetSecretValue with Switchboard's own client.
  if (/\.call\("GetSecretValue"/.test(code)) used.add('GetSecretValueCommand');
  for (const match of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*"@aws-sdk\/[^"]+"/g)) {
    for (const part of (match[1] ?? '').split(',')) {
      const [name = '', alias = name] = part.trim().split(/\s+as\s+/);
      if (!/Command$|^getSignedUrl$|^paginate/.test(name)) continue;
      if ((code.match(new RegExp(`\\b${alias}\\b`, 'g')) ?? []).length > 1) used.add(name);
    }
  }
  return [...used].sort();
}

/**
 * Bundles one function as the stack does (tree-shaken, the AWS SDK left as imports so its names stay
 * readable) and returns the SDK commands its code can reach, and what IAM they need.
 */
export async function sdkCallsOf(fn: FunctionName): Promise<{ commands: string[]; needs: Set<Need> }> {
  const entry = fileURLToPath(new URL(`../../functions/${fn}.ts`, import.meta.url));
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    treeShaking: true,
    external: ['@aws-sdk/*'],
    alias: { '#agents': FIXTURE_AGENTS },
    logLevel: 'error',
  });
  const code = result.outputFiles[0]?.text ?? '';
  const callers = (command: string) => SENT_THROUGH[command]?.filter(([caller]) => caller.test(code));
  const commands = usedSdkNames(code).filter((command) => callers(command)?.length !== 0);
  const needs = new Set<Need>(EVENT_SOURCE_NEEDS[fn] ?? []);
  for (const command of commands) {
    const need = callers(command)?.map(([, n]) => n) ?? COMMAND_NEEDS[command];
    if (!need) throw new Error(`${fn} calls ${command}, which sdk-calls.ts does not map to IAM actions.`);
    for (const n of need) needs.add(n);
  }
  // A query that names an index needs Query on that index as well.
  if (commands.includes('Query')) {
    if (/IndexName:\s*(?:INDEXES\.sweep|"gsi1")/.test(code)) needs.add('dynamodb:Query@sweepIndex');
    if (/IndexName:\s*(?:INDEXES\.owner|"gsi2")/.test(code)) needs.add('dynamodb:Query@ownerIndex');
  }
  return { commands, needs };
}
