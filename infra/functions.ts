import { fileURLToPath } from 'node:url';
import type { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ResolvedSwitchboardProps } from './props.ts';

/** The package root, found from this file so the construct also works when installed in node_modules. */
const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The Lambda entry points under `functions/`; `authorizer` only with built-in `auth`. */
export type SwitchboardEntry = 'http' | 'ws' | 'worker' | 'sweep' | 'authorizer';

/**
 * ESM bundles have no `require`; CommonJS dependencies that call it (some of the AWS SDK's) need one.
 */
const REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** What one function needs beyond the shared props. */
export interface SwitchboardFunctionOptions {
  /** Which file under `functions/` to bundle. */
  readonly entry: SwitchboardEntry;
  /** The function's timeout. */
  readonly timeout: Duration;
  /** Memory in MB (CPU scales with it). */
  readonly memorySize: number;
  /** Retries of a failed asynchronous invocation. @default Lambda's default (2) */
  readonly retryAttempts?: number;
}

/**
 * Builds one function: local esbuild bundling (no Docker), ESM for Node 22 on arm64, the team's agents
 * module swapped in for `#agents`. Each function has its own role that may write only to its own log
 * group, instead of AWSLambdaBasicExecutionRole, whose log permissions cover every log group.
 */
export function createSwitchboardFunction(
  scope: Construct,
  id: string,
  props: ResolvedSwitchboardProps,
  options: SwitchboardFunctionOptions,
): NodejsFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    removalPolicy: props.removalPolicy,
  });
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `Switchboard ${options.entry} function`,
  });
  logGroup.grantWrite(role);
  return new NodejsFunction(scope, id, {
    entry: `${PACKAGE_ROOT}functions/${options.entry}.ts`,
    handler: 'handler',
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    retryAttempts: options.retryAttempts,
    role,
    logGroup,
    tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
    bundling: {
      forceDockerBundling: false,
      format: OutputFormat.ESM,
      target: 'node22',
      minify: true,
      sourceMap: true,
      // The maps are for stack traces (NODE_OPTIONS=--enable-source-maps); sources would only add size.
      sourcesContent: false,
      mainFields: ['module', 'main'],
      banner: REQUIRE_BANNER,
      // Bundled rather than taken from the runtime: the code runs against the SDK versions it was tested
      // with (the runtime's copy changes without notice), and tree-shaking keeps the bundle small.
      bundleAwsSDK: true,
      esbuildArgs: { '--alias:#agents': props.agents },
    },
  });
}
