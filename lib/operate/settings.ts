import { parseSettings, SETTINGS_FILE, type Settings } from '../config/index.ts';
import { ValidationError } from '../errors/index.ts';
import { readZipEntry } from './zip.ts';

/** The settings a deployment runs with: what it was given, and with every default applied. */
export interface DeployedSettings {
  /** Where they were read: `sandbox at …`, or the function and its code's S3 object. */
  source: string;
  /** As the construct's `settings` prop (or `switchboard dev --settings`) gave them. */
  given: Record<string, unknown>;
  /** What the functions run with: the given settings, checked, defaults applied. */
  effective: Settings;
}

/** A template's value: a string, or `Fn::Sub` of the stack's pseudo parameters (the CDK assets bucket). */
function resolve(value: unknown, pseudo: Record<string, string>): string | undefined {
  if (typeof value === 'string') return value;
  const sub = (value as { 'Fn::Sub'?: unknown } | undefined)?.['Fn::Sub'];
  if (typeof sub !== 'string') return undefined;
  return sub.replace(/\$\{([^}]+)\}/g, (whole, name: string) => pseudo[name] ?? whole);
}

/**
 * Where a stack's functions' code is: from its template (`GetTemplate`), each Lambda function that
 * reads {@link SETTINGS_FILE} with the S3 object of its code zip. `stackArn` gives the account and
 * Region the CDK assets bucket's name is made of.
 */
export function settingsCodeLocations(
  template: unknown,
  stackArn: string,
): { logicalId: string; bucket: string; key: string }[] {
  const [, partition = 'aws', , region = '', account = ''] = stackArn.split(':');
  const pseudo = {
    'AWS::AccountId': account,
    'AWS::Region': region,
    'AWS::Partition': partition,
    'AWS::URLSuffix': partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com',
  };
  const resources = ((template as { Resources?: Record<string, unknown> })?.Resources ?? {}) as Record<
    string,
    { Type?: string; Properties?: Record<string, unknown> }
  >;
  return Object.entries(resources).flatMap(([logicalId, resource]) => {
    if (resource.Type !== 'AWS::Lambda::Function') return [];
    const properties = resource.Properties ?? {};
    const env = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
    if (env?.SWITCHBOARD_SETTINGS_FILE === undefined) return [];
    const code = (properties.Code ?? {}) as Record<string, unknown>;
    const bucket = resolve(code.S3Bucket, pseudo);
    const key = resolve(code.S3Key, pseudo);
    return bucket && key && !/\$\{/.test(bucket) ? [{ logicalId, bucket, key }] : [];
  });
}

/** The settings in a function's code zip; `source` names it in errors. */
export async function settingsFromZip(zip: Uint8Array, source: string): Promise<DeployedSettings> {
  const file = await readZipEntry(zip, SETTINGS_FILE);
  if (!file)
    throw new ValidationError(`${source} has no ${SETTINGS_FILE}: was it deployed with this version?`, [
      { path: ['stack'], message: SETTINGS_FILE },
    ]);
  return settingsOf(JSON.parse(file.toString('utf8')) as Record<string, unknown>, source);
}

/** Given settings with what they make effective. */
export function settingsOf(given: Record<string, unknown>, source: string): DeployedSettings {
  return { source, given, effective: parseSettings(given) };
}

/**
 * The settings of a deployed stack: its template (CloudFormation `GetTemplate`) names each
 * function's code zip in the CDK assets bucket; the first one is read (S3 `GetObject`; every
 * function's bundle holds the same file) and its {@link SETTINGS_FILE} parsed.
 */
export async function stackSettings(
  stack: string,
  options: { region?: string } = {},
): Promise<DeployedSettings> {
  const [
    { CloudFormationClient, DescribeStacksCommand, GetTemplateCommand },
    { S3Client, GetObjectCommand },
  ] = await Promise.all([import('@aws-sdk/client-cloudformation'), import('@aws-sdk/client-s3')]);
  const cfn = new CloudFormationClient({ ...(options.region && { region: options.region }) });
  const s3 = new S3Client({ ...(options.region && { region: options.region }) });
  try {
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: stack }));
    const { TemplateBody } = await cfn.send(
      new GetTemplateCommand({ StackName: stack, TemplateStage: 'Processed' }),
    );
    const [location] = settingsCodeLocations(JSON.parse(TemplateBody ?? '{}'), Stacks?.[0]?.StackId ?? '');
    if (!location)
      throw new ValidationError(`Stack ${stack} has no Switchboard function whose code is in S3.`, [
        { path: ['stack'], message: 'SWITCHBOARD_SETTINGS_FILE' },
      ]);
    const object = await s3.send(new GetObjectCommand({ Bucket: location.bucket, Key: location.key }));
    const zip = await object.Body?.transformToByteArray();
    const source = `stack ${stack}, function ${location.logicalId} (s3://${location.bucket}/${location.key})`;
    return await settingsFromZip(zip ?? new Uint8Array(), source);
  } finally {
    cfn.destroy();
    s3.destroy();
  }
}
