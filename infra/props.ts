import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import type { IHttpRouteAuthorizer, IWebSocketRouteAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { AuthConfigSchema } from '../lib/auth/types.ts';
import { parseSettings, type SettingsInput } from '../lib/config/index.ts';
import { installJsonSchemaChecker } from '../lib/contract/index.ts';
import * as jsonSchemaChecker from '../lib/contract/json-schema-checker.ts';

// The settings are checked at synth, JSON Schemas (host tools' parameters) compiled included. The
// checker is loaded statically here: a top-level await would stop a CommonJS app from requiring this.
installJsonSchemaChecker(jsonSchemaChecker);

import { WEBSOCKET_ACCESS_LOGS, type WebSocketAccessLogs } from './access-logs.ts';
import type { SwitchboardMonitoringProps } from './monitoring.ts';
import { WEBSOCKET_IDENTITY_SOURCES, type WebSocketTokenSource } from './routes.ts';

/**
 * The Lambda runtimes Switchboard is tested on: the functions are bundled for that Node (esbuild's
 * `node22` or `node24` target).
 */
export type SwitchboardNodeRuntime = 'nodejs22.x' | 'nodejs24.x';

const NODE_RUNTIMES: readonly SwitchboardNodeRuntime[] = ['nodejs22.x', 'nodejs24.x'];

/** The log levels the functions understand (Powertools' `LOG_LEVEL`). */
export type SwitchboardLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/**
 * API Gateway's throttling of one stage: a steady rate and a burst (token bucket), for all callers
 * together. Past it API Gateway answers `429 Too Many Requests` itself, before any function runs.
 */
export interface StageThrottle {
  /** Requests (or WebSocket messages) per second, on average. */
  readonly rateLimit: number;
  /** How many may arrive at once above the rate. */
  readonly burstLimit: number;
}

/** {@link SwitchboardProps.httpThrottle}'s default. */
export const DEFAULT_HTTP_THROTTLE: StageThrottle = { rateLimit: 1000, burstLimit: 2000 };
/** {@link SwitchboardProps.webSocketThrottle}'s default. */
export const DEFAULT_WEBSOCKET_THROTTLE: StageThrottle = { rateLimit: 500, burstLimit: 1000 };

/**
 * Built-in authentication by an OpenID Connect provider (Amazon Cognito, or any other): API Gateway's
 * JWT authoriser on every HTTP route, and a `$connect` Lambda authoriser that verifies the same token
 * on the WebSocket API.
 */
export interface SwitchboardAuth {
  /**
   * The token issuer (`iss`), an https URL whose `/.well-known/openid-configuration` names its key set,
   * e.g. `https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123`.
   */
  readonly issuer: string;
  /** The accepted audiences: a token's `aud`, or its `client_id` when it has no `aud` (a Cognito app client id). */
  readonly audience: string[];
  /**
   * Where hosts put the token on `$connect`, which sets the authoriser's identity source (API Gateway
   * refuses a connection that lacks it with 401 before the authoriser runs): `'subprotocol'`
   * (`Sec-WebSocket-Protocol`), `'query'` (`?token=`), or `'either'`. See docs/deployment.md.
   * @default 'either'
   */
  readonly webSocketTokenSource?: WebSocketTokenSource;
}

/** Properties of the {@link Switchboard} construct. Every optional property has a documented default. */
export interface SwitchboardProps {
  /**
   * Path to the module whose default export is the team's Switchboard server with its agents
   * registered. It replaces `#agents` in every function bundle. Relative paths resolve against the
   * current working directory (where `cdk` runs).
   */
  readonly agents: string;
  /**
   * Runtime settings (docs/configuration.md): checked at synth, where a bad one fails naming its
   * field, and delivered to every function as a JSON file in its bundle (`switchboard-settings.json`),
   * so they are not bound by Lambda's 4 KB of environment variables. @default every setting's default
   */
  readonly settings?: SettingsInput;
  /** What happens to the table, bucket and log groups when the stack is deleted. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** The turn worker's timeout: the longest a turn can run. At most 15 minutes. @default Duration.minutes(5) */
  readonly workerTimeout?: Duration;
  /**
   * Memory of the turn worker in MB (CPU scales with it). It mostly waits on the agent: 512 MB is
   * several times what a turn was measured to use (docs/performance.md, "Functions: size, import time and memory"). @default 512
   */
  readonly workerMemorySize?: number;
  /**
   * The functions' Lambda runtime, and the Node their bundles target. Both are tested by the suite
   * (docs/deployment.md, "Node runtime"). @default 'nodejs22.x'
   */
  readonly nodeRuntime?: SwitchboardNodeRuntime;
  /** Memory of the HTTP, WebSocket and sweep functions in MB. @default 512 */
  readonly memorySize?: number;
  /** Records per worker invocation (1–10, the FIFO maximum). @default 10 */
  readonly workerBatchSize?: number;
  /** Upper bound on concurrent worker invocations (2–1000). @default no bound beyond the account's */
  readonly workerMaxConcurrency?: number;
  /**
   * Reserved concurrency of the AG-UI function (1–1000): at most this many AG-UI streams at once, and
   * as many kept out of the account's pool for it, so a burst on its public URL cannot take the
   * concurrency the worker needs. Opt-in: a reservation fails the deploy when the account cannot keep
   * 100 unreserved beside it (a new account's quota may be 10). See docs/deployment.md, "Concurrency".
   * Not with custom authorisers (there is no AG-UI function). @default none
   */
  readonly aguiReservedConcurrency?: number;
  /** The WebSocket API stage name; it is part of the `wss://` URL. @default 'live' */
  readonly stageName?: string;
  /**
   * The WebSocket stage's access log, which needs the account's API Gateway CloudWatch role (one
   * setting per account and region; synth cannot see it): `'off'`, `'account-role-exists'` (the role is
   * set already: the stage fails to deploy otherwise), or `'create-account-role'` (this stack sets it,
   * replacing the account's role for every REST and WebSocket API in the region). The HTTP API's access
   * log needs no such role and is always on. See docs/deployment.md, "Access logs".
   * @default 'off': deploys in a fresh account
   */
  readonly webSocketAccessLogs?: WebSocketAccessLogs;
  /**
   * A KMS key that encrypts every log group of the stack (the functions' and the APIs' access logs).
   * Its key policy must let CloudWatch Logs use it (`logs.<region>.amazonaws.com`: Encrypt*, Decrypt*,
   * ReEncrypt*, GenerateDataKey*, Describe*), or the log groups fail to create. Control Tower's
   * CT.CLOUDWATCH.PR.3 asks for it. @default CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: IKey;
  /** How long function logs are kept. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** `LOG_LEVEL` of every function. @default 'INFO' */
  readonly logLevel?: SwitchboardLogLevel;
  /**
   * OpenTelemetry spans of every invocation, turn and AWS call, exported over OTLP/HTTP (the SDK and
   * the exporter are loaded only then). `true` sends them to X-Ray's OTLP endpoint, signed with each
   * function's role (Transaction Search must be on in the account), with Lambda's active tracing on;
   * an object names a team's OTLP endpoint, its headers' secret and the share of traces kept
   * (docs/deployment.md, "Traces"). API Gateway's HTTP and WebSocket APIs take no part in X-Ray.
   * @default false
   */
  readonly tracing?: boolean | SwitchboardTracing;
  /**
   * Alarms (with an SNS topic, or yours), a CloudWatch dashboard and the namespace of the runtime's
   * metrics; `false` creates none of them. See docs/operations.md.
   * @default alarms and a dashboard with the default thresholds (DEFAULT_ALARM_THRESHOLDS), notifying a new topic
   */
  readonly monitoring?: SwitchboardMonitoringProps | false;
  /**
   * Built-in authentication: JWTs of this issuer for these audiences, verified by API Gateway on HTTP
   * and by a `$connect` authoriser on WebSocket. Not with `httpAuthorizer` or `webSocketAuthorizer`.
   * @default none: give this, both custom authorisers, or `allowAnonymous: true`
   */
  readonly auth?: SwitchboardAuth;
  /**
   * A custom authoriser of every HTTP route. The handlers read its claims through the server's
   * `resolveContext` (by default `sub` and `tenant`). Needs `webSocketAuthorizer` too.
   * @default none
   */
  readonly httpAuthorizer?: IHttpRouteAuthorizer;
  /**
   * A custom authoriser of `$connect`, e.g. a `WebSocketLambdaAuthorizer` (browsers cannot set headers
   * on a WebSocket: read the token from a subprotocol or the query string). Needs `httpAuthorizer` too.
   * @default none
   */
  readonly webSocketAuthorizer?: IWebSocketRouteAuthorizer;
  /**
   * Throttling of the HTTP API's stage, every route together (the account's own limit is 10,000 a
   * second across all its APIs in a region). Per-user limits are the `limits` settings. `false`
   * leaves only the account's limit. @default { rateLimit: 1000, burstLimit: 2000 }
   */
  readonly httpThrottle?: StageThrottle | false;
  /**
   * Throttling of the WebSocket API's stage: connects and messages, every route together. `false`
   * leaves only the account's limit. @default { rateLimit: 500, burstLimit: 1000 }
   */
  readonly webSocketThrottle?: StageThrottle | false;
  /**
   * Serve an API without an authoriser: every caller of it is the same anonymous user, who can read
   * every anonymous session. Synth refuses a stack without `auth` (or both custom authorisers) unless
   * this says so, and warns when it does (`switchboard:noAuthorizer`).
   * @default false
   */
  readonly allowAnonymous?: boolean;
  /**
   * The EventBridge bus the runtime publishes its domain events on (docs/operations.md, "Domain
   * events": a pause opened, expiring, answered or lapsed, a turn failed, a budget reached): an
   * existing bus (the account's default bus, `EventBus.fromEventBusName(this, 'Default', 'default')`,
   * or a team's own), or `false` to publish none. Only `events:PutEvents` on it is granted.
   * @default a new bus of this stack's own
   */
  readonly eventBus?: IEventBus | false;
  /**
   * An audit trail of the file bucket's objects: a CloudTrail trail in this region that records the
   * data events (every object read, write and delete, with who made it) of this bucket only, no
   * management events, into a log bucket of its own with log file validation. CloudTrail bills each
   * data event (docs/deployment.md, "Object audit trail"). @default false
   */
  readonly objectAuditTrail?: boolean;
  /**
   * What the agents' models need from AWS, granted to the worker (where agents run) and to no other
   * function (docs/models.md, "Secrets" and "Bedrock"). Nothing is granted without it.
   * @default none
   */
  readonly models?: SwitchboardModels;
}

/** Where the functions' spans go, as the construct's `tracing` prop names it. */
export interface SwitchboardTracing {
  /**
   * `xray` (X-Ray's OTLP endpoint of the stack's region, signed with the function's role: the role
   * gets `xray:PutSpans` and `xray:PutSpansForIndexing`), or the https URL of a team's OTLP/HTTP
   * traces endpoint (`https://otlp.example.com/v1/traces`).
   * @default 'xray'
   */
  readonly endpoint?: 'xray' | string;
  /**
   * A Secrets Manager secret holding the headers of a team's endpoint as a JSON object
   * (`{"x-api-key": "…"}`): the secret itself, or its name or complete ARN. Every traced function may
   * read it (`secretsmanager:GetSecretValue` on it alone). Not with X-Ray, which takes the role's signature.
   * @default no headers
   */
  readonly headersSecret?: ISecret | string;
  /**
   * The share of new traces kept, 0 to 1 (parent-based: a trace a host started keeps its own
   * decision). With X-Ray, Lambda's active tracing decides for every invocation (X-Ray's sampling
   * rules), so this matters only with a team's endpoint.
   * @default 1
   */
  readonly sampleRatio?: number;
}

/** The `tracing` prop with its defaults, or undefined when tracing is off. */
export interface ResolvedTracing {
  readonly endpoint: 'xray' | string;
  readonly headersSecret?: ISecret | string;
  readonly sampleRatio?: number;
}

/** What the `tracing` prop asks for: `true` is X-Ray. */
export function tracingOf(tracing: boolean | SwitchboardTracing | undefined): ResolvedTracing | undefined {
  if (!tracing) return undefined;
  if (tracing === true) return { endpoint: 'xray' };
  return { ...tracing, endpoint: tracing.endpoint ?? 'xray' };
}

/** The `tracing` prop: X-Ray or an https URL, a headers secret only with a URL, a ratio from 0 to 1. */
function checkTracing(
  tracing: boolean | SwitchboardTracing | undefined,
  fail: (message: string) => void,
): void {
  const resolved = tracingOf(tracing);
  if (!resolved) return;
  const { endpoint, headersSecret, sampleRatio } = resolved;
  if (endpoint !== 'xray' && !Token.isUnresolved(endpoint)) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:')
      fail(
        `tracing.endpoint must be 'xray' or the https URL of an OTLP/HTTP traces endpoint, got "${endpoint}".`,
      );
  }
  if (endpoint === 'xray' && headersSecret !== undefined)
    fail(
      "tracing.headersSecret is for a team's endpoint: X-Ray takes the function's signature, not headers.",
    );
  if (
    sampleRatio !== undefined &&
    !Token.isUnresolved(sampleRatio) &&
    !(sampleRatio >= 0 && sampleRatio <= 1)
  )
    fail(`tracing.sampleRatio must be from 0 to 1, got ${sampleRatio}.`);
}

/** The AWS resources model agents use, as the construct's `models` prop names them. */
export interface SwitchboardModels {
  /**
   * The Secrets Manager secrets holding endpoint keys (each model agent's `apiKeyFromSecret`): the
   * worker may `secretsmanager:GetSecretValue` on these, and only these (and decrypt with a secret's
   * customer managed key, when it has one).
   */
  readonly secrets?: readonly ISecret[];
  /**
   * The ARNs of the Bedrock models that AI SDK agents call with the SDK's Bedrock provider (foundation
   * models, inference profiles, and the foundation models a cross-region profile routes to): the
   * worker may `bedrock:InvokeModelWithResponseStream` on these.
   */
  readonly bedrock?: readonly string[];
}

type OptionalProps =
  | 'logEncryptionKey'
  | 'workerMaxConcurrency'
  | 'aguiReservedConcurrency'
  | 'settings'
  | 'auth'
  | 'httpAuthorizer'
  | 'webSocketAuthorizer'
  | 'eventBus'
  | 'models';

/** {@link SwitchboardProps} after validation, with every default applied. */
export type ResolvedSwitchboardProps = Required<Omit<SwitchboardProps, OptionalProps>> &
  Pick<SwitchboardProps, OptionalProps> & { readonly settingsJson?: string };

const MAX_LAMBDA_TIMEOUT = Duration.minutes(15);

/** What {@link checkSwitchboardProps} makes of the props: defaults applied, and every problem found. */
export interface CheckedSwitchboardProps {
  /** The props with defaults; a value that failed its check is replaced by its default. */
  readonly resolved: ResolvedSwitchboardProps;
  /** One message per prop that cannot deploy, naming it; empty when the props are fine. */
  readonly errors: readonly string[];
}

/**
 * Applies defaults and lists the props that cannot deploy, so a mistake fails at `cdk synth` with a
 * message naming the prop rather than halfway through a CloudFormation deployment. The construct
 * reports the messages through `node.addValidation`; a value that is an unresolved token (a
 * parameter, another resource's attribute) is only known at deployment and is not checked here.
 *
 * @example
 * ```ts
 * const { resolved, errors } = checkSwitchboardProps({ agents: './src/agents.ts', allowAnonymous: true });
 * errors; // []
 * resolved.workerTimeout.toMinutes(); // 5
 * ```
 */
export function checkSwitchboardProps(props: SwitchboardProps): CheckedSwitchboardProps {
  const errors: string[] = [];
  const fail = (message: string) => errors.push(`Switchboard: ${message}`);
  const agents = isAbsolute(props.agents) ? props.agents : resolve(process.cwd(), props.agents);
  if (!existsSync(agents) || !statSync(agents).isFile()) {
    fail(`the agents module "${props.agents}" does not exist (resolved to ${agents}).`);
  }
  let workerTimeout = props.workerTimeout ?? Duration.minutes(5);
  if (
    !workerTimeout.isUnresolved() &&
    (workerTimeout.toSeconds() > MAX_LAMBDA_TIMEOUT.toSeconds() || workerTimeout.toSeconds() < 1)
  ) {
    fail(`workerTimeout must be between 1 second and 15 minutes (Lambda's limit).`);
    workerTimeout = Duration.minutes(5);
  }
  let stageName = props.stageName ?? 'live';
  if (
    !Token.isUnresolved(stageName) &&
    (!/^[A-Za-z0-9_-]{1,128}$/.test(stageName) || stageName === '$default')
  ) {
    fail(`stageName "${stageName}" may only use letters, digits, "-" and "_".`);
    stageName = 'live';
  }
  const range = (name: string, value: number | undefined, fallback: number, min: number, max: number) =>
    checkRange(name, value ?? fallback, min, max, fail) ? (value ?? fallback) : fallback;
  const settings = props.settings === undefined ? undefined : serialiseSettings(props.settings, fail);
  checkAuth(props, fail);
  checkModels(props.models, fail);
  checkTracing(props.tracing, fail);
  if (
    props.aguiReservedConcurrency !== undefined &&
    props.auth === undefined &&
    (props.httpAuthorizer !== undefined || props.webSocketAuthorizer !== undefined)
  ) {
    fail(
      'aguiReservedConcurrency needs the AG-UI function, which a stack with custom authorisers does not have.',
    );
  }
  let nodeRuntime = props.nodeRuntime ?? 'nodejs22.x';
  if (!NODE_RUNTIMES.includes(nodeRuntime)) {
    fail(`nodeRuntime must be one of ${NODE_RUNTIMES.join(', ')}, got ${String(nodeRuntime)}.`);
    nodeRuntime = 'nodejs22.x';
  }
  let webSocketAccessLogs = props.webSocketAccessLogs ?? 'off';
  if (!WEBSOCKET_ACCESS_LOGS.includes(webSocketAccessLogs)) {
    fail(
      `webSocketAccessLogs must be one of ${WEBSOCKET_ACCESS_LOGS.map((v) => `'${v}'`).join(', ')}, got ${String(webSocketAccessLogs)}.`,
    );
    webSocketAccessLogs = 'off';
  }
  return {
    resolved: {
      agents,
      webSocketAccessLogs,
      workerTimeout,
      stageName,
      nodeRuntime,
      memorySize: range('memorySize', props.memorySize, 512, 128, 10_240),
      workerMemorySize: range('workerMemorySize', props.workerMemorySize, 512, 128, 10_240),
      workerBatchSize: range('workerBatchSize', props.workerBatchSize, 10, 1, 10),
      workerMaxConcurrency:
        props.workerMaxConcurrency === undefined ||
        checkRange('workerMaxConcurrency', props.workerMaxConcurrency, 2, 1000, fail)
          ? props.workerMaxConcurrency
          : undefined,
      aguiReservedConcurrency:
        props.aguiReservedConcurrency === undefined ||
        checkRange('aguiReservedConcurrency', props.aguiReservedConcurrency, 1, 1000, fail)
          ? props.aguiReservedConcurrency
          : undefined,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
      logEncryptionKey: props.logEncryptionKey,
      logLevel: props.logLevel ?? 'INFO',
      tracing: props.tracing ?? false,
      monitoring: props.monitoring ?? {},
      settings: settings === undefined ? undefined : props.settings,
      auth: props.auth,
      allowAnonymous: props.allowAnonymous ?? false,
      httpAuthorizer: props.httpAuthorizer,
      webSocketAuthorizer: props.webSocketAuthorizer,
      eventBus: props.eventBus,
      objectAuditTrail: props.objectAuditTrail ?? false,
      models: props.models,
      httpThrottle: checkThrottle('httpThrottle', props.httpThrottle, DEFAULT_HTTP_THROTTLE, fail),
      webSocketThrottle: checkThrottle(
        'webSocketThrottle',
        props.webSocketThrottle,
        DEFAULT_WEBSOCKET_THROTTLE,
        fail,
      ),
      settingsJson: settings,
    },
    errors,
  };
}

/** A Bedrock model's ARN: a foundation model, an inference profile, or a model of the account's own. */
const BEDROCK_MODEL_ARN =
  /^arn:aws[a-z-]*:bedrock:[a-z0-9-]*:[0-9]{0,12}:(foundation-model|inference-profile|application-inference-profile|provisioned-model|custom-model|imported-model)\/[^*]+$/;

/** Each Bedrock model named by a whole ARN: a wildcard would grant every model of a kind. */
function checkModels(models: SwitchboardModels | undefined, fail: (message: string) => void): void {
  for (const arn of models?.bedrock ?? []) {
    if (!Token.isUnresolved(arn) && !BEDROCK_MODEL_ARN.test(arn))
      fail(`models.bedrock: "${arn}" is not the ARN of one Bedrock model or inference profile.`);
  }
}

/**
 * Authentication is a decision, never a default: built-in `auth`, both custom authorisers, or an
 * explicit `allowAnonymous: true`.
 */
function checkAuth(props: SwitchboardProps, fail: (message: string) => void): void {
  const custom = props.httpAuthorizer !== undefined || props.webSocketAuthorizer !== undefined;
  if (props.auth !== undefined) {
    if (custom) {
      fail(
        'give either auth (built-in JWT authentication) or httpAuthorizer and webSocketAuthorizer, not both.',
      );
      return;
    }
    // A token (a user pool's issuer URL, a client id) is only known at deployment: a literal stands
    // in for it so that the rest is still checked.
    const issuer = Token.isUnresolved(props.auth.issuer) ? 'https://unresolved.invalid' : props.auth.issuer;
    const audience = Token.isUnresolved(props.auth.audience)
      ? ['unresolved']
      : props.auth.audience.map((entry) => (Token.isUnresolved(entry) ? 'unresolved' : entry));
    const source = props.auth.webSocketTokenSource;
    if (source !== undefined && !Object.hasOwn(WEBSOCKET_IDENTITY_SOURCES, source)) {
      fail(
        `auth.webSocketTokenSource must be one of ${Object.keys(WEBSOCKET_IDENTITY_SOURCES).join(', ')}, got ${String(source)}.`,
      );
    }
    const parsed = AuthConfigSchema.safeParse({ issuer, audience });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail(`auth.${issue?.path.join('.') || 'issuer'} is not valid: ${issue?.message}.`);
    }
    return;
  }
  const missing = [
    ...(props.httpAuthorizer ? [] : ['the HTTP API']),
    ...(props.webSocketAuthorizer ? [] : ['the WebSocket API']),
  ];
  if (missing.length > 0 && props.allowAnonymous !== true) {
    fail(
      `${missing.join(' and ')} would have no authoriser, and every caller would be the same ` +
        'anonymous user. Give auth: { issuer, audience } (JWTs of your identity provider), or ' +
        'httpAuthorizer and webSocketAuthorizer, or set allowAnonymous: true to mean it.',
    );
  }
}

/** Whether `value` is an integer in range (or a token, known only at deployment). */
function checkRange(
  name: string,
  value: number,
  min: number,
  max: number,
  fail: (message: string) => void,
): boolean {
  if (Token.isUnresolved(value)) return true;
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(`${name} must be an integer from ${min} to ${max}, got ${value}.`);
    return false;
  }
  return true;
}

function checkThrottle(
  name: string,
  throttle: StageThrottle | false | undefined,
  fallback: StageThrottle,
  fail: (message: string) => void,
): StageThrottle | false {
  if (throttle === false) return false;
  if (throttle === undefined) return fallback;
  const { rateLimit, burstLimit } = throttle;
  let valid = true;
  if (!Token.isUnresolved(rateLimit) && (!Number.isFinite(rateLimit) || rateLimit <= 0)) {
    fail(`${name}.rateLimit must be a positive number of requests a second, got ${rateLimit}.`);
    valid = false;
  }
  valid = checkRange(`${name}.burstLimit`, burstLimit, 1, 1_000_000, fail) && valid;
  return valid ? { rateLimit, burstLimit } : fallback;
}

/**
 * The settings as the functions read them: JSON, checked here so that a bad one fails the synth.
 * Undefined (and a message) when they cannot be used.
 */
function serialiseSettings(settings: SettingsInput, fail: (message: string) => void): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(settings);
  } catch (error) {
    fail(`settings must be JSON-serialisable (${(error as Error).message}).`);
    return undefined;
  }
  if (json === undefined) {
    fail('settings must be a JSON object.');
    return undefined;
  }
  try {
    parseSettings(JSON.parse(json) as Record<string, unknown>);
  } catch (error) {
    fail(`${(error as Error).message} (docs/configuration.md).`);
    return undefined;
  }
  return json;
}
