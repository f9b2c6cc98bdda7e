import { createRuntime } from '../boot/index.ts';
import { parseOrThrow, ValidationError } from '../errors/index.ts';
import { settingsOf, stackSettings } from './settings.ts';
import {
  type OperatorTarget,
  type SandboxResources,
  SandboxResourcesSchema,
  type StackResources,
  StackResourcesSchema,
} from './types.ts';

/** Where the sandbox says what it runs on, for the operator commands. */
export const SANDBOX_OPERATE_PATH = '/sandbox/operate';

/** The target of a running sandbox (`switchboard dev`), found from its address. */
export async function sandboxTarget(url: string): Promise<OperatorTarget> {
  const base = url.replace(/\/+$/, '');
  let body: unknown;
  try {
    const res = await fetch(`${base}${SANDBOX_OPERATE_PATH}`);
    if (!res.ok) throw new Error(`it answered ${res.status}`);
    body = await res.json();
  } catch (error) {
    throw new ValidationError(
      `No sandbox answers at ${base} (${(error as Error).message}): start one with switchboard dev, or name a stack.`,
      [{ path: ['sandbox'], message: 'unreachable' }],
    );
  }
  const { dlqUrl, settings, ...resources } = parseOrThrow(SandboxResourcesSchema, body, 'sandbox');
  const label = `sandbox at ${base}`;
  return {
    rt: operatorRuntime(resources),
    dlqUrl,
    label,
    settings: async () => settingsOf(settings ?? {}, label),
  };
}

/** The runtime the commands use: the sweep's (it may read and repair every item kind), quiet. */
const operatorRuntime = (
  resources: Pick<SandboxResources, 'table' | 'queueUrl' | 'bucket'> &
    Partial<Pick<SandboxResources, 'region' | 'credentials' | 'endpoints' | 'refKey' | 'eventBus'>> & {
      refKeySecret?: string;
    },
) => createRuntime({ fn: 'sweep', logLevel: 'ERROR', ...resources });

/**
 * The region the SDK's clients take when none is named, read with the SDK's own loader and
 * selectors: `AWS_REGION`, the profile's `region`, the instance's; else `Region is missing`.
 */
async function chainRegion(): Promise<string> {
  const config = await import('@smithy/core/config');
  return config.loadConfig(config.NODE_REGION_CONFIG_OPTIONS, config.NODE_REGION_CONFIG_FILE_OPTIONS)();
}

/** The region of an ARN (`arn:<partition>:<service>:<region>:…`), if it names one. */
const regionOfArn = (arn: string | undefined): string | undefined => arn?.split(':')[3] || undefined;

/**
 * The target of a deployed stack's resources, with credentials from the SDK's usual chain. Every
 * client of its runtime (table, queue, bucket, secrets, bus) uses one region: the one given, else the
 * SDK's chain's.
 */
export async function resourcesTarget(resources: StackResources, label: string): Promise<OperatorTarget> {
  const { dlqUrl, region, ...parsed } = parseOrThrow(StackResourcesSchema, resources, 'stack');
  return { rt: operatorRuntime({ ...parsed, region: region ?? (await chainRegion()) }), dlqUrl, label };
}

/** The construct's outputs (`<id>TableName`, …; infra/switchboard.ts) that name what the commands use. */
const OUTPUTS = {
  table: 'TableName',
  queueUrl: 'QueueUrl',
  dlqUrl: 'DeadLetterQueueUrl',
  bucket: 'BucketName',
} as const;

/** The output of the session-ref key's secret, which only a command given `--user` reads. */
const REF_KEY_OUTPUT = 'RefKeySecretArn';

/** The output of the domain events' bus, where `tenant suspend` and `erase` publish their audit event. */
const EVENT_BUS_OUTPUT = 'EventBusName';

/**
 * The resources a stack's outputs name. `outputs` are the stack's (OutputKey → OutputValue); with
 * several Switchboard constructs in one stack, `prefix` (the construct's id) says which.
 */
export function resourcesFromOutputs(
  stack: string,
  outputs: Record<string, string>,
  prefix?: string,
): Record<keyof typeof OUTPUTS, string> & { refKeySecret?: string; eventBus?: string } {
  // A construct's outputs share its id as their prefix; only a Switchboard has a dead-letter queue output.
  const prefixes =
    prefix === undefined
      ? Object.keys(outputs)
          .filter((key) => key.endsWith(OUTPUTS.dlqUrl))
          .map((key) => key.slice(0, -OUTPUTS.dlqUrl.length))
      : [prefix.replace(/[^A-Za-z0-9]/g, '')];
  if (prefixes.length !== 1)
    throw new ValidationError(
      prefixes.length === 0
        ? `Stack ${stack} has no output ending in ${OUTPUTS.dlqUrl}: is it a Switchboard stack, deployed with this version?`
        : `Stack ${stack} has several Switchboard constructs (${prefixes.join(', ')}): name one with --construct.`,
      [{ path: ['stack'], message: `output ${OUTPUTS.dlqUrl}` }],
    );
  const found = {} as Record<keyof typeof OUTPUTS, string>;
  for (const [field, suffix] of Object.entries(OUTPUTS) as [keyof typeof OUTPUTS, string][]) {
    const value = outputs[`${prefixes[0]}${suffix}`];
    if (value === undefined)
      throw new ValidationError(`Stack ${stack} has no output ${prefixes[0]}${suffix}.`, [
        { path: ['stack'], message: `output ${suffix}` },
      ]);
    found[field] = value;
  }
  const refKeySecret = outputs[`${prefixes[0]}${REF_KEY_OUTPUT}`];
  const eventBus = outputs[`${prefixes[0]}${EVENT_BUS_OUTPUT}`];
  return {
    ...found,
    ...(refKeySecret !== undefined && { refKeySecret }),
    ...(eventBus !== undefined && { eventBus }),
  };
}

/**
 * The target of a deployed stack found by name: its outputs, read with CloudFormation's
 * DescribeStacks (credentials and region from the SDK's usual chain, or `region`). Its runtime's
 * clients and its settings' reads use the region given, else the region of the stack's ARN: where
 * the chain found it.
 */
export async function stackTarget(
  stack: string,
  options: { region?: string; construct?: string } = {},
): Promise<OperatorTarget> {
  // Loaded only by `--stack`: the other commands never need it.
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const client = new CloudFormationClient({ ...(options.region && { region: options.region }) });
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stack }));
    const outputs = Object.fromEntries(
      (Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
    );
    const resources = resourcesFromOutputs(stack, outputs, options.construct);
    const region = options.region ?? regionOfArn(Stacks?.[0]?.StackId) ?? (await client.config.region());
    const target = await resourcesTarget({ ...resources, region }, `stack ${stack}`);
    return { ...target, settings: () => stackSettings(stack, { region }) };
  } finally {
    client.destroy();
  }
}
