import { Annotations, CfnOutput, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Trail } from 'aws-cdk-lib/aws-cloudtrail';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, type IEventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Grant, type IGrantable, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import {
  type CfnFunction,
  type FunctionUrl,
  FunctionUrlAuthType,
  HttpMethod,
  InvokeMode,
  type Function as SwitchboardFunction,
} from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AUTH_ENV } from '../lib/auth/env.ts';
import {
  allows,
  FUNCTION_NAMES,
  FUNCTION_PERMISSIONS,
  type FunctionName,
  GRANTEE_PERMISSIONS,
  OBJECT_PREFIXES,
  type Grant as PermissionGrant,
  type ResourceKind,
  SETTINGS_FILE,
} from '../lib/config/index.ts';
import { AGUI_CORS } from '../lib/contract/index.ts';
import { METRICS_NAMESPACE } from '../lib/telemetry/index.ts';
import {
  addAccessLog,
  createApiGatewayAccountRole,
  HTTP_ACCESS_LOG_FORMAT,
  WEBSOCKET_ACCESS_LOG_FORMAT,
} from './access-logs.ts';
import { builtInAuthorizers, createHttpApi, createWebSocketApi, throttleStage } from './apis.ts';
import {
  createSwitchboardFunction,
  type SwitchboardEntry,
  type SwitchboardFunctionOptions,
} from './functions.ts';
import { acknowledgeGuardFindings } from './guard.ts';
import { SwitchboardMonitoring } from './monitoring.ts';
import { acknowledgeSwitchboardFindings } from './nag.ts';
import {
  checkSwitchboardProps,
  type ResolvedSwitchboardProps,
  type ResolvedTracing,
  type SwitchboardModels,
  type SwitchboardProps,
  tracingOf,
} from './props.ts';
import { WEBSOCKET_IDENTITY_SOURCES } from './routes.ts';
import {
  bucketRetention,
  createBucket,
  createObjectAuditTrail,
  createRefKeySecret,
  createTable,
  createTurnsQueue,
  OWNER_INDEX_NAME,
  SWEEP_INDEX_NAME,
} from './storage.ts';

/**
 * Switchboard on AWS: the HTTP and WebSocket APIs, the turns queue and its worker, the sweep, the
 * table and the file bucket, wired to the team's agents module.
 *
 * @example
 * ```ts
 * import { App, Stack } from 'aws-cdk-lib';
 * import { Switchboard } from 'switchboard/infra';
 *
 * const app = new App();
 * const stack = new Stack(app, 'Assistant');
 * new Switchboard(stack, 'Switchboard', {
 *   agents: './src/agents.ts',
 *   auth: { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123', audience: ['app-client-id'] },
 *   settings: { runs: { leaseMs: 120_000 } },
 * });
 * ```
 */
export class Switchboard extends Construct {
  /** Sessions, messages, events, pending actions, connections and request ids. */
  readonly table: TableV2;
  /** Files and large attachments. */
  readonly bucket: Bucket;
  /**
   * The session-ref key: read by the functions that identify callers, and by an operator command
   * given `--user`. Never rotated (see docs/deployment.md).
   */
  readonly refKeySecret: Secret;
  /** The FIFO queue of turn jobs, one message group per session. */
  readonly queue: Queue;
  /** Where a turn job goes after TURNS_MAX_RECEIVE_COUNT (15) receives that did not delete it. */
  readonly deadLetterQueue: Queue;
  /** The HTTP API. */
  readonly httpApi: HttpApi;
  /** The WebSocket API and its stage. */
  readonly webSocketApi: WebSocketApi;
  /** The WebSocket API's stage. */
  readonly webSocketStage: WebSocketStage;
  /** The four runtime functions, by entry point. */
  readonly functions: Readonly<Record<Exclude<SwitchboardEntry, 'authorizer' | 'agui'>, SwitchboardFunction>>;
  /** The WebSocket API's `$connect` authoriser, with built-in `auth` only. */
  readonly authorizerFunction?: SwitchboardFunction;
  /**
   * The AG-UI endpoint (docs/ag-ui.md): a function URL in RESPONSE_STREAM mode, whose function verifies
   * the JWT itself. With built-in `auth`, or `allowAnonymous` without custom authorisers (a custom
   * authoriser's rules cannot be applied by the function).
   */
  readonly aguiFunction?: SwitchboardFunction;
  readonly aguiUrl?: FunctionUrl;
  /** Alarms, their topic and the dashboard; absent with `monitoring: false`. */
  readonly monitoring?: SwitchboardMonitoring;
  /**
   * The role this stack sets as the account's API Gateway CloudWatch role; only with
   * `webSocketAccessLogs: 'create-account-role'`.
   */
  readonly apiGatewayAccountRole?: Role;
  /** The CloudTrail trail of the file bucket's data events; only with `objectAuditTrail`. */
  readonly objectAuditTrail?: Trail;
  /**
   * The bus the runtime publishes its domain events on (the `eventBus` prop, or one of its own);
   * undefined with `eventBus: false`.
   */
  readonly eventBus?: IEventBus;
  /** The `models` prop: what the worker may use of Secrets Manager and Bedrock for the agents' models. */
  private readonly models?: SwitchboardModels;
  /** The `tracing` prop: where the spans go; undefined with tracing off. */
  private readonly tracing?: ResolvedTracing;
  /** The secret of a team endpoint's headers (`tracing.headersSecret`), if any. */
  private readonly traceHeadersSecret?: ISecret;

  /**
   * Creates every resource. Props that cannot deploy fail `cdk synth` through the construct tree's
   * validation, each message naming the prop; a missing agents module fails here already.
   */
  constructor(scope: Construct, id: string, props: SwitchboardProps) {
    super(scope, id);
    const { resolved, errors } = checkSwitchboardProps(props);
    const missingAgents = errors.find((message) => message.includes('agents module'));
    // The functions' bundling reads the agents module while the construct is built, before any
    // validation runs: without this its failure would be esbuild's, not one naming the prop.
    if (missingAgents) throw new Error(`${this.node.path}: ${missingAgents}`);
    this.node.addValidation({ validate: () => [...errors] });
    this.models = resolved.models;
    this.tracing = tracingOf(resolved.tracing);
    this.traceHeadersSecret = this.headersSecretOf(this.tracing);
    this.table = createTable(this, resolved.removalPolicy);
    this.refKeySecret = createRefKeySecret(this, resolved.removalPolicy);
    this.bucket = createBucket(
      this,
      resolved.removalPolicy,
      resolved.removalPolicy === RemovalPolicy.DESTROY,
      bucketRetention(resolved.settings),
    );
    this.objectAuditTrail = resolved.objectAuditTrail
      ? createObjectAuditTrail(this, this.bucket, resolved.removalPolicy)
      : undefined;
    this.eventBus =
      resolved.eventBus === false
        ? undefined
        : (resolved.eventBus ??
          new EventBus(this, 'EventBus', { description: 'Switchboard domain events (docs/operations.md)' }));
    const { queue, dlq } = createTurnsQueue(this, resolved.workerTimeout);
    this.queue = queue;
    this.deadLetterQueue = dlq;

    const make = (name: string, options: SwitchboardFunctionOptions) =>
      createSwitchboardFunction(this, name, resolved, options);
    // API Gateway gives an integration 29-30 s, so a longer function timeout would only hide a hang.
    const apiTimeout = Duration.seconds(29);
    this.functions = {
      http: make('HttpFunction', { entry: 'http', timeout: apiTimeout, memorySize: resolved.memorySize }),
      ws: make('WebSocketFunction', { entry: 'ws', timeout: apiTimeout, memorySize: resolved.memorySize }),
      worker: make('WorkerFunction', {
        entry: 'worker',
        timeout: resolved.workerTimeout,
        memorySize: resolved.workerMemorySize,
      }),
      // Shorter than the schedule's period so sweeps rarely overlap (they race safely when they do), and
      // no async retries: the next tick a minute later does the same work.
      sweep: make('SweepFunction', {
        entry: 'sweep',
        timeout: Duration.seconds(55),
        memorySize: resolved.memorySize,
        retryAttempts: 0,
      }),
    };
    this.authorizerFunction = resolved.auth ? this.createAuthorizerFunction(resolved, make) : undefined;
    const custom = resolved.httpAuthorizer !== undefined || resolved.webSocketAuthorizer !== undefined;
    if (resolved.auth || (resolved.allowAnonymous && !custom)) {
      // A stream follows a run to its end: as long as the worker may run it, and a minute to spare.
      this.aguiFunction = make('AgUiFunction', {
        entry: 'agui',
        timeout: Duration.seconds(Math.min(900, resolved.workerTimeout.toSeconds() + 60)),
        memorySize: resolved.memorySize,
      });
      this.aguiUrl = this.aguiFunction.addFunctionUrl({
        // The function verifies the JWT itself: a function URL knows only IAM or nothing.
        authType: FunctionUrlAuthType.NONE,
        invokeMode: InvokeMode.RESPONSE_STREAM,
        cors: {
          allowedOrigins: [...AGUI_CORS.allowOrigins],
          allowedHeaders: [...AGUI_CORS.allowHeaders],
          allowedMethods: AGUI_CORS.allowMethods.map((m) => HttpMethod[m as 'POST']),
          maxAge: Duration.seconds(AGUI_CORS.maxAgeSeconds ?? 0),
        },
      });
      if (resolved.aguiReservedConcurrency !== undefined) {
        (this.aguiFunction.node.defaultChild as CfnFunction).reservedConcurrentExecutions =
          resolved.aguiReservedConcurrency;
      }
      if (resolved.auth) {
        this.aguiFunction.addEnvironment(AUTH_ENV.issuer, resolved.auth.issuer);
        this.aguiFunction.addEnvironment(AUTH_ENV.audience, JSON.stringify(resolved.auth.audience));
      } else {
        // Said explicitly: without either, the function refuses to start (it fails closed).
        this.aguiFunction.addEnvironment(AUTH_ENV.anonymous, 'true');
      }
    }
    const authorizers =
      resolved.auth && this.authorizerFunction
        ? builtInAuthorizers(
            resolved.auth,
            this.authorizerFunction,
            Object.hasOwn(WEBSOCKET_IDENTITY_SOURCES, resolved.auth.webSocketTokenSource ?? '')
              ? resolved.auth.webSocketTokenSource
              : undefined,
          )
        : resolved;
    this.httpApi = createHttpApi(this, this.functions.http, authorizers.httpAuthorizer);
    const { api, stage } = createWebSocketApi(
      this,
      this.functions.ws,
      resolved.stageName,
      authorizers.webSocketAuthorizer,
    );
    const anonymous = [
      ...(authorizers.httpAuthorizer ? [] : ['HTTP API']),
      ...(authorizers.webSocketAuthorizer ? [] : ['WebSocket API']),
    ];
    if (anonymous.length > 0) {
      // Only reached with allowAnonymous: true (props refuse it otherwise); said at every synth.
      Annotations.of(this).addWarningV2(
        'switchboard:noAuthorizer',
        `Switchboard: allowAnonymous is set and the ${anonymous.join(' and the ')} ${anonymous.length > 1 ? 'have' : 'has'} no authoriser: every caller is the same anonymous user and can read every anonymous session.`,
      );
    }
    this.webSocketApi = api;
    this.webSocketStage = stage;
    throttleStage(this.httpApi.defaultStage, resolved.httpThrottle);
    throttleStage(stage, resolved.webSocketThrottle);
    const { httpAccessLogs, accountRole } = this.addAccessLogs(resolved);
    this.apiGatewayAccountRole = accountRole;

    this.monitoring =
      resolved.monitoring === false
        ? undefined
        : new SwitchboardMonitoring(
            this,
            'Monitoring',
            {
              functions: this.functions,
              aguiFunction: this.aguiFunction,
              authorizerFunction: this.authorizerFunction,
              table: this.table,
              httpAccessLogs,
              publishesEvents: this.eventBus !== undefined,
              queue: this.queue,
              deadLetterQueue: this.deadLetterQueue,
              httpApi: this.httpApi,
              webSocketApi: this.webSocketApi,
              webSocketStage: this.webSocketStage,
              removalPolicy: resolved.removalPolicy,
            },
            resolved.monitoring,
          );
    this.configure(resolved);
    const resourceArns = this.grantAccess();
    this.connectEventSources(resolved);
    this.addOutputs(id);
    acknowledgeGuardFindings(this, {
      webSocketAccessLogs: resolved.webSocketAccessLogs,
      logRetention: resolved.logRetention,
      logsEncrypted: resolved.logEncryptionKey !== undefined,
    });
    acknowledgeSwitchboardFindings(this, {
      xray: this.tracing?.endpoint === 'xray',
      resourceArns,
      webSocketAccessLogs: resolved.webSocketAccessLogs,
    });
  }

  /**
   * The `$connect` authoriser of built-in `auth`: only the issuer and audiences in its environment (it
   * reads no table, queue or bucket), 10 s (a cold start fetches the issuer's keys once).
   */
  /** The function of an entry point, if the stack has it. */
  functionOf(name: FunctionName): SwitchboardFunction | undefined {
    if (name === 'authorizer') return this.authorizerFunction;
    if (name === 'agui') return this.aguiFunction;
    return this.functions[name];
  }

  private createAuthorizerFunction(
    resolved: ResolvedSwitchboardProps,
    make: (name: string, options: SwitchboardFunctionOptions) => SwitchboardFunction,
  ): SwitchboardFunction {
    const fn = make('AuthorizerFunction', {
      entry: 'authorizer',
      timeout: Duration.seconds(10),
      memorySize: 256,
    });
    const environment: Record<string, string> = {
      [AUTH_ENV.issuer]: resolved.auth!.issuer,
      [AUTH_ENV.audience]: JSON.stringify(resolved.auth!.audience),
      POWERTOOLS_SERVICE_NAME: 'switchboard',
      LOG_LEVEL: resolved.logLevel,
    };
    for (const [key, value] of Object.entries(environment)) fn.addEnvironment(key, value);
    return fn;
  }

  /**
   * Every function gets the same configuration (names and URLs are not secrets, and one config loader
   * serves all four); what each may do is decided by {@link grantAccess}.
   */
  private configure(resolved: ResolvedSwitchboardProps): void {
    const environment: Record<string, string> = {
      SWITCHBOARD_TABLE: this.table.tableName,
      SWITCHBOARD_QUEUE_URL: this.queue.queueUrl,
      SWITCHBOARD_BUCKET: this.bucket.bucketName,
      SWITCHBOARD_WS_ENDPOINT: this.webSocketStage.callbackUrl,
      POWERTOOLS_SERVICE_NAME: 'switchboard',
      LOG_LEVEL: resolved.logLevel,
      // The settings travel in the bundle, not here: Lambda caps a function's environment at 4 KB.
      SWITCHBOARD_SETTINGS_FILE: SETTINGS_FILE,
      // Where the metrics go (what the alarms and the dashboard read), with or without them.
      POWERTOOLS_METRICS_NAMESPACE: this.monitoring?.namespace ?? METRICS_NAMESPACE,
      ...this.tracingEnvironment(),
      // Without it the runtime publishes no domain events.
      ...(this.eventBus && { SWITCHBOARD_EVENT_BUS: this.eventBus.eventBusName }),
    };
    for (const fn of [...Object.values(this.functions), ...(this.aguiFunction ? [this.aguiFunction] : [])]) {
      for (const [key, value] of Object.entries(environment)) fn.addEnvironment(key, value);
    }
    // Where the key is, told only to the functions allowed to read it: the others never need it.
    for (const name of FUNCTION_NAMES) {
      if (allows(name, 'secretsmanager:GetSecretValue', 'refKeySecret'))
        this.functionOf(name)?.addEnvironment('SWITCHBOARD_REF_KEY_SECRET', this.refKeySecret.secretArn);
    }
  }

  /**
   * Least privilege, from the one declaration the sandbox also enforces ({@link FUNCTION_PERMISSIONS}):
   * each function gets the actions its code calls, on this instance's resources only.
   */
  private grantAccess(): Record<ResourceKind, string[]> {
    const arns = this.resourceArns();
    const connections = new Set<string>();
    for (const name of FUNCTION_NAMES) {
      const fn = this.functionOf(name);
      if (!fn) continue;
      for (const grant of FUNCTION_PERMISSIONS[name]) {
        const granted = this.grantKind(fn, grant);
        if (grant.resource !== 'connections') continue;
        for (const statement of granted?.principalStatements ?? []) {
          for (const resource of statement.resources) connections.add(resource);
        }
      }
    }
    // A key secret encrypted with a customer managed key is read only with that key's decrypt.
    for (const secret of this.models?.secrets ?? [])
      secret.encryptionKey?.grantDecrypt(this.functions.worker);
    this.grantTraceExport();
    // cdk-nag's acknowledgements name the resources as the stage's grant wrote them.
    return { ...arns, connections: [...connections] };
  }

  /** The functions that export spans: every one that builds a runtime (not the `$connect` authoriser). */
  private tracedFunctions(): SwitchboardFunction[] {
    return [...Object.values(this.functions), ...(this.aguiFunction ? [this.aguiFunction] : [])];
  }

  /** The `tracing.headersSecret` prop as a secret (a name or a complete ARN is imported). */
  private headersSecretOf(tracing: ResolvedTracing | undefined): ISecret | undefined {
    const given = tracing?.headersSecret;
    if (given === undefined || typeof given !== 'string') return given;
    return given.startsWith('arn:')
      ? Secret.fromSecretCompleteArn(this, 'TraceHeadersSecret', given)
      : Secret.fromSecretNameV2(this, 'TraceHeadersSecret', given);
  }

  /** Where the spans go (lib/telemetry/export.ts reads it): nothing with tracing off. */
  private tracingEnvironment(): Record<string, string> {
    const tracing = this.tracing;
    if (!tracing) return {};
    return {
      SWITCHBOARD_TRACING: 'true',
      SWITCHBOARD_TRACES_ENDPOINT: tracing.endpoint,
      ...(tracing.sampleRatio !== undefined && {
        SWITCHBOARD_TRACES_SAMPLE_RATIO: String(tracing.sampleRatio),
      }),
      ...(this.traceHeadersSecret && {
        SWITCHBOARD_TRACES_HEADERS_SECRET: this.traceHeadersSecret.secretArn,
      }),
    };
  }

  /**
   * What the export needs, to each traced function: X-Ray's OTLP endpoint takes spans with
   * `xray:PutSpans` (and `xray:PutSpansForIndexing` for the share Transaction Search indexes), which
   * have no resource-level permissions; a team's endpoint needs its headers secret, read as the model
   * keys are (that secret alone, and its key's decrypt).
   */
  private grantTraceExport(): void {
    if (!this.tracing) return;
    for (const fn of this.tracedFunctions()) {
      if (this.tracing.endpoint === 'xray') {
        fn.addToRolePolicy(
          new PolicyStatement({ actions: ['xray:PutSpans', 'xray:PutSpansForIndexing'], resources: ['*'] }),
        );
      }
      const secret = this.traceHeadersSecret;
      if (secret) {
        Grant.addToPrincipal({
          grantee: fn,
          actions: ['secretsmanager:GetSecretValue'],
          // A secret named without its six random characters is matched by IAM on its full ARN.
          resourceArns: [secret.secretFullArn ?? `${secret.secretArn}-??????`],
        });
        secret.encryptionKey?.grantDecrypt(fn);
      }
    }
  }

  /** This instance's ARNs of each kind of resource the permission list names. */
  private resourceArns(): Record<ResourceKind, string[]> {
    return {
      table: [this.table.tableArn],
      sweepIndex: [`${this.table.tableArn}/index/${SWEEP_INDEX_NAME}`],
      ownerIndex: [`${this.table.tableArn}/index/${OWNER_INDEX_NAME}`],
      queue: [this.queue.queueArn],
      // Each prefix a grant may name: a role's statement names only those of its own grants.
      objects: OBJECT_PREFIXES.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
      bucket: [this.bucket.bucketArn],
      // Granted by the stage itself (grantManagementApiAccess), which knows that ARN's form.
      connections: [],
      eventBus: this.eventBus ? [this.eventBus.eventBusArn] : [],
      refKeySecret: [this.refKeySecret.secretArn],
      // A secret named without its six random characters is matched by IAM on its full ARN.
      modelSecrets: (this.models?.secrets ?? []).map(
        (secret) => secret.secretFullArn ?? `${secret.secretArn}-??????`,
      ),
      bedrockModels: [...(this.models?.bedrock ?? [])],
    };
  }

  /**
   * One entry of the permission list, granted to `grantee` on this instance's resources. Posting to
   * connections goes through the stage's own grant, which knows the management API's ARN form.
   */
  private grantKind(grantee: IGrantable, grant: PermissionGrant): Grant | undefined {
    if (
      grant.resource === 'connections' &&
      grant.actions.every((a) => a === 'execute-api:ManageConnections')
    ) {
      return this.webSocketStage.grantManagementApiAccess(grantee);
    }
    const resourceArns = grant.prefixes
      ? grant.prefixes.map((prefix) => this.bucket.arnForObjects(`${prefix}*`))
      : this.resourceArns()[grant.resource];
    // A resource the stack does not have (no event bus) is granted nothing.
    if (resourceArns.length === 0) return undefined;
    return Grant.addToPrincipal({ grantee, actions: [...grant.actions], resourceArns });
  }

  /**
   * Lets `grantee` read sessions as an operator's tools do (`switchboard inspect`, `tail`; see
   * docs/operations.md): `GetItem` and `Query` on the table, `Query` on the owner index. Nothing
   * that writes. The actions are {@link GRANTEE_PERMISSIONS}' `readSessions`.
   *
   * @example
   * ```ts
   * const support = new Role(stack, 'Support', { assumedBy: new AccountRootPrincipal() });
   * switchboard.grantReadSessions(support);
   * ```
   */
  grantReadSessions(grantee: IGrantable): Grant {
    return GRANTEE_PERMISSIONS.readSessions
      .map((grant) => this.grantKind(grantee, grant))
      .filter((grant): grant is Grant => grant !== undefined)
      .reduce((all, grant) => all.combine(grant));
  }

  /**
   * Lets `grantee` call the AG-UI function's URL (`lambda:InvokeFunctionUrl`, and the
   * `lambda:InvokeFunction` a URL's caller also needs, on that function only);
   * undefined when the stack has no AG-UI function (custom authorisers). The URL's auth type is
   * `NONE` (the function checks the caller's JWT itself), so today this adds no caller: it is the
   * statement a principal needs once the URL is put behind IAM, and keeps that grant in one place.
   *
   * @example
   * ```ts
   * switchboard.grantInvokeAgUi(backendFunction);
   * ```
   */
  grantInvokeAgUi(grantee: IGrantable): Grant | undefined {
    return this.aguiFunction?.grantInvokeUrl(grantee);
  }

  /** The worker's queue subscription (it grants the consume actions) and the sweep's schedule. */
  private connectEventSources(resolved: ResolvedSwitchboardProps): void {
    this.functions.worker.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: resolved.workerBatchSize,
        reportBatchItemFailures: true,
        maxConcurrency: resolved.workerMaxConcurrency,
      }),
    );
    new Rule(this, 'SweepSchedule', {
      description: 'Switchboard sweep: lapsed approvals, lost runs, stale connections',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(this.functions.sweep, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
      ],
    });
  }

  /**
   * Access logs of both APIs (the WebSocket stage's as `webSocketAccessLogs` says), kept as long as the
   * functions' logs. Their formats (infra/access-logs.ts) leave out query strings, headers and bodies:
   * tokens travel in them.
   */
  private addAccessLogs(resolved: ResolvedSwitchboardProps): {
    httpAccessLogs: LogGroup;
    accountRole?: Role;
  } {
    const options = {
      retention: resolved.logRetention,
      removalPolicy: resolved.removalPolicy,
      encryptionKey: resolved.logEncryptionKey,
    };
    // The HTTP API always has its `$default` stage (createHttpApi makes it).
    const httpAccessLogs = addAccessLog(this, 'HttpApiAccessLogs', this.httpApi.defaultStage!, {
      ...options,
      format: HTTP_ACCESS_LOG_FORMAT,
    });
    if (resolved.webSocketAccessLogs === 'off') return { httpAccessLogs };
    addAccessLog(this, 'WebSocketAccessLogs', this.webSocketStage, {
      ...options,
      format: WEBSOCKET_ACCESS_LOG_FORMAT,
    });
    return {
      httpAccessLogs,
      ...(resolved.webSocketAccessLogs === 'create-account-role' && {
        accountRole: createApiGatewayAccountRole(this, this.webSocketStage),
      }),
    };
  }

  /** Stable output names (`<id>HttpApiUrl`) so scripts can read them; the id keeps two instances apart. */
  private addOutputs(id: string): void {
    const prefix = id.replace(/[^A-Za-z0-9]/g, '');
    const output = (name: string, value: string, description: string) =>
      new CfnOutput(this, name, { value, description }).overrideLogicalId(`${prefix}${name}`);
    output('HttpApiUrl', this.httpApi.apiEndpoint, 'Base URL of the HTTP API (routes start with /api)');
    output('WebSocketUrl', this.webSocketStage.url, 'wss:// URL hosts connect to');
    output('TableName', this.table.tableName, 'DynamoDB table');
    output('QueueUrl', this.queue.queueUrl, 'SQS FIFO turns queue');
    output('BucketName', this.bucket.bucketName, 'S3 file bucket');
    output('DeadLetterQueueUrl', this.deadLetterQueue.queueUrl, 'SQS FIFO dead-letter queue of turn jobs');
    output(
      'RefKeySecretArn',
      this.refKeySecret.secretArn,
      'Secrets Manager secret of the session-ref key (operator commands with --user read it)',
    );
    if (this.eventBus)
      output(
        'EventBusName',
        this.eventBus.eventBusName,
        'EventBridge bus of the domain events (operator commands publish their audit event there)',
      );
    if (this.aguiUrl)
      output('AgUiUrl', this.aguiUrl.url, 'AG-UI endpoint (POST RunAgentInput, server-sent events)');
  }
}
