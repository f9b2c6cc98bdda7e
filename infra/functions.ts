import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AssetHashType, type Duration, type ILocalBundling } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { SETTINGS_FILE } from '../lib/config/index.ts';
import { ENTRY_FILE, PACKAGE_ROOT, type SwitchboardEntry } from './bundling.ts';
import { type ResolvedSwitchboardProps, type SwitchboardNodeRuntime, tracingOf } from './props.ts';

export type { SwitchboardEntry } from './bundling.ts';

/**
 * The functions' default runtime. Its major is the `node` devDependency's, the Node that `npm test` and
 * `npm start` run on, and the bundles' esbuild target: test/infra/node-version.test.ts holds them together.
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_22_X;

/** The runtimes a stack may choose ({@link SwitchboardProps.nodeRuntime}), each bundled for its own Node. */
export const LAMBDA_RUNTIMES: Readonly<Record<SwitchboardNodeRuntime, Runtime>> = {
  'nodejs22.x': Runtime.NODEJS_22_X,
  'nodejs24.x': Runtime.NODEJS_24_X,
};

/** esbuild's target for a runtime: `nodejs24.x` → `node24`. */
export function bundleTarget(runtime: SwitchboardNodeRuntime): string {
  return `node${runtime.slice('nodejs'.length, -'.x'.length)}`;
}

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
 * Bundles one function at synth with `infra/bundle-function.ts`, that is with the options of
 * `infra/bundling.ts` (local esbuild, no Docker). Asset bundling is synchronous in the CDK and
 * esbuild's plugins are not, so the build runs in a child process: the built script beside this file
 * when the construct runs from the package's build (`dist/infra/`), else the source with `tsx`, a
 * dependency. The deployment's settings are written beside the code ({@link SETTINGS_FILE}), so they
 * are part of the bundle and of its hash. The fields are part of the asset's cache key: two functions
 * never share a bundle, and other settings make another one.
 */
export class SwitchboardBundler implements ILocalBundling {
  constructor(
    readonly entry: SwitchboardEntry,
    readonly agents: string,
    readonly settingsJson: string,
    /** esbuild's target, the Node of the function's runtime ({@link bundleTarget}). */
    readonly target: string = bundleTarget('nodejs22.x'),
  ) {}

  tryBundle(outputDir: string): boolean {
    const built = fileURLToPath(new URL('./bundle-function.js', import.meta.url));
    const loader = existsSync(built)
      ? []
      : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
    const script = existsSync(built) ? built : join(PACKAGE_ROOT, 'infra', 'bundle-function.ts');
    execFileSync(process.execPath, [...loader, script, this.entry, this.agents, outputDir, this.target], {
      stdio: 'inherit',
    });
    writeFileSync(join(outputDir, SETTINGS_FILE), this.settingsJson);
    return true;
  }
}

/** The function's code: its bundle, hashed by content so an unchanged build deploys nothing. */
function bundledCode(
  entry: SwitchboardEntry,
  agents: string,
  settingsJson: string,
  runtime: SwitchboardNodeRuntime,
): Code {
  return Code.fromAsset(PACKAGE_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local bundler succeeds or throws.
      image: LAMBDA_RUNTIMES[runtime].bundlingImage,
      local: new SwitchboardBundler(entry, agents, settingsJson, bundleTarget(runtime)),
    },
  });
}

/**
 * Builds one function: the bundle of {@link bundledCode}, ESM for the stack's Node (22 unless
 * `nodeRuntime` says 24) on arm64, the team's agents
 * module swapped in for `#agents`. Each function has its own role that may write only to its own log
 * group, instead of AWSLambdaBasicExecutionRole, whose log permissions cover every log group.
 */
export function createSwitchboardFunction(
  scope: Construct,
  id: string,
  props: ResolvedSwitchboardProps,
  options: SwitchboardFunctionOptions,
): LambdaFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    removalPolicy: props.removalPolicy,
    encryptionKey: props.logEncryptionKey,
  });
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `Switchboard ${options.entry} function`,
  });
  logGroup.grantWrite(role);
  return new LambdaFunction(scope, id, {
    code: bundledCode(options.entry, props.agents, props.settingsJson ?? '{}', props.nodeRuntime),
    handler: `${ENTRY_FILE.replace(/\.mjs$/, '')}.handler`,
    runtime: LAMBDA_RUNTIMES[props.nodeRuntime],
    architecture: Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    retryAttempts: options.retryAttempts,
    role,
    logGroup,
    // Lambda's own segment of each invocation goes to X-Ray, and the function's spans join it (their
    // parent is the invocation's X-Ray header): only when the spans go to X-Ray too.
    tracing: tracingOf(props.tracing)?.endpoint === 'xray' ? Tracing.ACTIVE : Tracing.DISABLED,
  });
}
