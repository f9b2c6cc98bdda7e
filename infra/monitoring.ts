import { Duration, type RemovalPolicy, Token } from 'aws-cdk-lib';
import type { HttpApi, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, ServicePrincipal, StarPrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TURNS_MAX_RECEIVE_COUNT } from '../lib/config/index.ts';
import { DEFAULT_SERVICE_NAME, METRICS_NAMESPACE } from '../lib/telemetry/index.ts';
import { createDashboard, UNAUTHORIZED_METRIC } from './dashboard.ts';

export { UNAUTHORIZED_METRIC };

/**
 * When each alarm goes off. Every alarm looks at 5-minute periods except the sweep's errors (15
 * minutes); a period without data is not a breach, except for `SweepNotInvoked`, where it is the breach.
 */
export interface SwitchboardAlarmThresholds {
  /** Messages in the turns dead-letter queue (a job that failed TURNS_MAX_RECEIVE_COUNT, 15, receives). @default 1 */
  readonly deadLetterMessages?: number;
  /** Worker invocations that failed in 5 minutes (a crash or a timeout, not a turn that ended as error). @default 1 */
  readonly workerErrors?: number;
  /** Worker invocations Lambda throttled in 5 minutes. @default 1 */
  readonly workerThrottles?: number;
  /** Age of the oldest job in the turns queue, in seconds: turns wait instead of running. @default 300 */
  readonly queueAgeSeconds?: number;
  /** Percentage of HTTP API requests answered 5xx in 5 minutes. @default 5 */
  readonly httpServerErrorPercent?: number;
  /** Percentage of WebSocket API connects and messages whose integration failed in 5 minutes. @default 5 */
  readonly webSocketErrorPercent?: number;
  /** Requests (or connects and messages) in 5 minutes below which the error rates are not judged. @default 20 */
  readonly minRequests?: number;
  /** Sweep invocations that failed in 15 minutes (it runs once a minute). @default 3 */
  readonly sweepErrors?: number;
  /** AG-UI function invocations that failed in 5 minutes (a crash or a timeout, not a run that ended as error). @default 1 */
  readonly aguiErrors?: number;
  /** AG-UI function invocations Lambda throttled in 5 minutes (its reserved concurrency or the account's is used up). @default 1 */
  readonly aguiThrottles?: number;
  /** `$connect` authoriser invocations that failed in 5 minutes (a refused token is not a failure). @default 1 */
  readonly authorizerErrors?: number;
  /** `$connect` authoriser invocations Lambda throttled in 5 minutes. @default 1 */
  readonly authorizerThrottles?: number;
  /** Percentage of HTTP API requests answered 401 in 5 minutes (at least `minRequests`): a wrong issuer or audience refuses every caller. @default 50 */
  readonly unauthorizedPercent?: number;
  /** DynamoDB read and write throttle events on the table in 5 minutes (the SDK retries a few). @default 10 */
  readonly tableThrottleEvents?: number;
  /** Domain events that could not be published in 5 minutes (`EventsNotPublished`). @default 1 */
  readonly eventsNotPublished?: number;
  /** Turns that went on without an MCP server's tools in 5 minutes (`McpServersUnavailable`). @default 1 */
  readonly mcpServersUnavailable?: number;
}

/** Default {@link SwitchboardAlarmThresholds}. */
export const DEFAULT_ALARM_THRESHOLDS: Required<SwitchboardAlarmThresholds> = {
  deadLetterMessages: 1,
  workerErrors: 1,
  workerThrottles: 1,
  queueAgeSeconds: 300,
  httpServerErrorPercent: 5,
  webSocketErrorPercent: 5,
  minRequests: 20,
  sweepErrors: 3,
  aguiErrors: 1,
  aguiThrottles: 1,
  authorizerErrors: 1,
  authorizerThrottles: 1,
  unauthorizedPercent: 50,
  tableThrottleEvents: 10,
  eventsNotPublished: 1,
  mcpServersUnavailable: 1,
};

/** The construct's `monitoring` prop: alarms, where they notify, and a dashboard. */
export interface SwitchboardMonitoringProps {
  /** Create the alarms (docs/operations.md says what each means and what to do). @default true */
  readonly alarms?: boolean;
  /**
   * The SNS topic alarms notify (subscribe e-mail, chat or a pager to it). @default a new topic,
   * encrypted with a new KMS key that CloudWatch may use, exposed as `monitoring.alarmTopic`
   */
  readonly alarmTopic?: ITopic;
  /** Notify the topic when an alarm returns to OK too. @default true */
  readonly notifyOnOk?: boolean;
  /** When each alarm goes off. @default {@link DEFAULT_ALARM_THRESHOLDS} */
  readonly thresholds?: SwitchboardAlarmThresholds;
  /** Create a CloudWatch dashboard of turns, delivery, pauses, cost, the queue, the worker and both APIs. @default true */
  readonly dashboard?: boolean;
  /** The dashboard's name. @default one CloudFormation generates */
  readonly dashboardName?: string;
  /**
   * The CloudWatch namespace of the runtime's own metrics. Give each deployment in one account and
   * region its own, or their metrics add up. @default 'Switchboard'
   */
  readonly namespace?: string;
}

/** The parts of a {@link Switchboard} that monitoring watches. */
export interface MonitoredParts {
  readonly functions: Readonly<Record<'http' | 'ws' | 'worker' | 'sweep', LambdaFunction>>;
  /** The AG-UI function, when the stack has one (not with custom authorisers). */
  readonly aguiFunction?: LambdaFunction;
  /** The `$connect` authoriser, with built-in `auth` only. */
  readonly authorizerFunction?: LambdaFunction;
  readonly table: TableV2;
  /** The HTTP API's access log, whose `status` field counts the 401s. */
  readonly httpAccessLogs: ILogGroup;
  /** Whether the runtime publishes domain events (a bus is configured). */
  readonly publishesEvents: boolean;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly httpApi: HttpApi;
  readonly webSocketApi: WebSocketApi;
  readonly webSocketStage: WebSocketStage;
  readonly removalPolicy: RemovalPolicy;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Alarms, their SNS topic and a dashboard for one Switchboard, and the environment that makes its
 * functions publish metrics under the namespace the alarms and the dashboard read.
 */
export class SwitchboardMonitoring extends Construct {
  /** The runtime's metrics namespace, as its functions publish to it. */
  readonly namespace: string;
  /** The topic alarms notify; absent when alarms are off. */
  readonly alarmTopic?: ITopic;
  /** Every alarm, by name (`deadLetterQueue`, `workerErrors` …); empty when alarms are off. */
  readonly alarms: Readonly<Record<string, Alarm>>;

  constructor(scope: Construct, id: string, parts: MonitoredParts, props: SwitchboardMonitoringProps = {}) {
    super(scope, id);
    const errors: string[] = [];
    const fail = (message: string) => errors.push(`Switchboard: ${message}`);
    const namespace = props.namespace ?? METRICS_NAMESPACE;
    this.namespace = namespaceProblem(namespace, fail) ? METRICS_NAMESPACE : namespace;
    const thresholds = resolveThresholds(props.thresholds, fail);
    // Reported at synth through the construct tree, each naming its setting; the default stands in
    // meanwhile so that building the rest does not fail first on a value that was never going to deploy.
    this.node.addValidation({ validate: () => [...errors] });
    const metrics = runtimeMetric(this.namespace);
    // Counted with or without alarms: the dashboard graphs it too.
    new MetricFilter(this, 'HttpUnauthorizedFilter', {
      logGroup: parts.httpAccessLogs,
      filterPattern: FilterPattern.numberValue('$.status', '=', 401),
      metricNamespace: this.namespace,
      metricName: UNAUTHORIZED_METRIC,
      metricValue: '1',
      defaultValue: 0,
    });
    if (props.alarms ?? true) {
      this.alarmTopic = props.alarmTopic ?? this.createTopic(parts.removalPolicy);
      this.alarms = this.createAlarms(parts, thresholds, metrics);
      const action = new SnsAction(this.alarmTopic);
      for (const alarm of Object.values(this.alarms)) {
        alarm.addAlarmAction(action);
        if (props.notifyOnOk ?? true) alarm.addOkAction(action);
      }
    } else {
      this.alarms = {};
    }
    if (props.dashboard ?? true) {
      createDashboard(this, 'Dashboard', {
        parts,
        metrics,
        alarms: Object.values(this.alarms),
        dashboardName: props.dashboardName,
      });
    }
  }

  /** A topic encrypted at rest with a key CloudWatch alarms may use (an AWS-managed key would refuse them). */
  private createTopic(removalPolicy: RemovalPolicy): ITopic {
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Switchboard alarm notifications',
      enableKeyRotation: true,
      removalPolicy,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    // Grants on the key only for AWS services (Control Tower's CT.KMS.PR.3): nothing here creates one.
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'GrantsOnlyForAwsServices',
        effect: Effect.DENY,
        principals: [new StarPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: {
          BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' },
        },
      }),
    );
    return new Topic(this, 'AlarmTopic', {
      displayName: 'Switchboard alarms',
      masterKey: key,
      enforceSSL: true,
    });
  }

  private createAlarms(
    parts: MonitoredParts,
    t: Required<SwitchboardAlarmThresholds>,
    m: RuntimeMetric,
  ): Record<string, Alarm> {
    const { worker, sweep } = parts.functions;
    const alarm = (name: string, metric: IMetric, threshold: number, description: string) =>
      new Alarm(this, `${name[0]?.toUpperCase()}${name.slice(1)}Alarm`, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `Switchboard: ${description} See docs/operations.md, "Alarms".`,
      });
    const unauthorizedRate = new MathExpression({
      expression: `IF(requests >= ${t.minRequests}, 100 * unauthorized / requests, 0)`,
      usingMetrics: {
        // The filter's metric has no service dimension: an access log line has none to give.
        unauthorized: new Metric({
          namespace: this.namespace,
          metricName: UNAUTHORIZED_METRIC,
          statistic: 'Sum',
          period: FIVE_MINUTES,
        }),
        requests: parts.httpApi.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' }),
      },
      period: FIVE_MINUTES,
      label: '401 rate (%)',
    });
    const tableThrottles = new MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: parts.table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        writes: parts.table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
      },
      period: FIVE_MINUTES,
      label: 'Throttle events',
    });
    const { aguiFunction: agui, authorizerFunction: authorizer } = parts;
    const httpRate = errorRate(
      { errors: parts.httpApi.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }) },
      parts.httpApi.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' }),
      t.minRequests,
    );
    const ws = (metricName: string) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: parts.webSocketApi.apiId, Stage: parts.webSocketStage.stageName },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      });
    const wsRate = errorRate(
      { integration: ws('IntegrationError'), execution: ws('ExecutionError') },
      new MathExpression({
        expression: 'connects + messages',
        usingMetrics: { connects: ws('ConnectCount'), messages: ws('MessageCount') },
        period: FIVE_MINUTES,
      }),
      t.minRequests,
    );
    return {
      deadLetterQueue: alarm(
        'deadLetterQueue',
        parts.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
        }),
        t.deadLetterMessages,
        `turn jobs are in the dead-letter queue: each failed ${TURNS_MAX_RECEIVE_COUNT} deliveries and its turn did not run or did not close.`,
      ),
      // The alarm above stays in ALARM while any dead letter is there (up to 14 days), so it would not
      // notify again: this one fires on each rise of the count. Not NumberOfMessagesSent: SQS does not
      // count there the messages a redrive policy moves into a dead-letter queue.
      deadLetterArrivals: alarm(
        'deadLetterArrivals',
        new MathExpression({
          expression: 'DIFF(visible)',
          usingMetrics: {
            visible: parts.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
              period: FIVE_MINUTES,
              statistic: 'Maximum',
            }),
          },
          label: 'New dead letters',
          period: FIVE_MINUTES,
        }),
        1,
        'new turn jobs arrived in the dead-letter queue in the last five minutes (a rise of its visible messages).',
      ),
      workerErrors: alarm(
        'workerErrors',
        worker.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        t.workerErrors,
        'worker invocations failed (a crash, an out-of-memory or a timeout).',
      ),
      workerThrottles: alarm(
        'workerThrottles',
        worker.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        t.workerThrottles,
        'Lambda throttled the worker: turns wait for concurrency.',
      ),
      queueAge: alarm(
        'queueAge',
        parts.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        t.queueAgeSeconds,
        'the oldest turn job has waited too long in the queue.',
      ),
      httpServerErrors: alarm(
        'httpServerErrors',
        httpRate,
        t.httpServerErrorPercent,
        'too many HTTP API requests were answered 5xx.',
      ),
      webSocketErrors: alarm(
        'webSocketErrors',
        wsRate,
        t.webSocketErrorPercent,
        'too many WebSocket connects or messages failed in their integration.',
      ),
      sweepErrors: alarm(
        'sweepErrors',
        sweep.metricErrors({ period: Duration.minutes(15), statistic: 'Sum' }),
        t.sweepErrors,
        'the sweep keeps failing: lapsed pauses, lost runs and stale connections are not being handled.',
      ),
      // Its schedule runs it every minute: no invocation in 5 minutes means the rule is disabled or
      // deleted, or the function cannot be invoked. No data is exactly that case, so it breaches.
      sweepNotInvoked: new Alarm(this, 'SweepNotInvokedAlarm', {
        metric: sweep.metricInvocations({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
        alarmDescription:
          'Switchboard: the sweep was not invoked in 5 minutes (its schedule runs it every minute): lapsed pauses, lost runs and stale connections wait. Check that the SweepSchedule rule is enabled and targets the sweep function, and the function\'s state. See docs/operations.md, "Alarms".',
      }),
      httpUnauthorized: alarm(
        'httpUnauthorized',
        unauthorizedRate,
        t.unauthorizedPercent,
        "too many HTTP API requests were answered 401: with every caller refused, check the stack's auth issuer and audience against the tokens' iss and aud.",
      ),
      tableThrottles: alarm(
        'tableThrottles',
        tableThrottles,
        t.tableThrottleEvents,
        "DynamoDB throttled reads or writes on the table: requests fail once the SDK stops retrying. Look for a hot session in the functions' logs; check the account's on-demand table quotas.",
      ),
      mcpServersUnavailable: alarm(
        'mcpServersUnavailable',
        m('McpServersUnavailable'),
        t.mcpServersUnavailable,
        'turns went on without the tools of an MCP server whose list could not be read (unreachable, 401/403, a protocol error). Read "The agent warned" lines with code mcp_server_unavailable in the worker\'s log: source names the server, warning says why.',
      ),
      ...(parts.publishesEvents && {
        eventsNotPublished: alarm(
          'eventsNotPublished',
          m('EventsNotPublished'),
          t.eventsNotPublished,
          'domain events could not be published (PutEvents failed or refused entries): consumers of the bus missed them. Read "Domain events not published" in the functions\' logs for the error and the detail-types.',
        ),
      }),
      ...(agui && {
        aguiErrors: alarm(
          'aguiErrors',
          agui.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
          t.aguiErrors,
          'AG-UI function invocations failed (a crash, an out-of-memory or a timeout): streams ended early. Read its log for Task timed out or Runtime exited.',
        ),
        aguiThrottles: alarm(
          'aguiThrottles',
          agui.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
          t.aguiThrottles,
          "Lambda throttled the AG-UI function: AG-UI callers were refused. Raise aguiReservedConcurrency if set, or the account's concurrency.",
        ),
      }),
      ...(authorizer && {
        authorizerErrors: alarm(
          'authorizerErrors',
          authorizer.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
          t.authorizerErrors,
          "the $connect authoriser failed (not a refused token: a crash or a timeout, such as the issuer's keys out of reach): hosts cannot connect. Read its log.",
        ),
        authorizerThrottles: alarm(
          'authorizerThrottles',
          authorizer.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
          t.authorizerThrottles,
          "Lambda throttled the $connect authoriser: hosts' connects were refused. Check the account's concurrency.",
        ),
      }),
    };
  }
}

/** A metric of the runtime's own, as its functions publish it (`service` dimension). */
export type RuntimeMetric = (name: string, statistic?: string, dimensions?: Record<string, string>) => Metric;

function runtimeMetric(namespace: string): RuntimeMetric {
  return (metricName, statistic = 'Sum', dimensions = {}) =>
    new Metric({
      namespace,
      metricName,
      dimensionsMap: { service: DEFAULT_SERVICE_NAME, ...dimensions },
      statistic,
      period: FIVE_MINUTES,
    });
}

/** 100 × the errors over the requests, or 0 while there are fewer than `min` requests (a lone 5xx is not a rate). */
function errorRate(errors: Record<string, IMetric>, requests: IMetric, min: number): MathExpression {
  const sum = Object.keys(errors).join(' + ');
  return new MathExpression({
    expression: `IF(requests >= ${min}, 100 * (${sum}) / requests, 0)`,
    usingMetrics: { ...errors, requests },
    period: FIVE_MINUTES,
    label: 'error rate (%)',
  });
}

/** The thresholds with defaults; a value that cannot work is reported and replaced by its default. */
function resolveThresholds(
  given: SwitchboardAlarmThresholds = {},
  fail: (message: string) => void,
): Required<SwitchboardAlarmThresholds> {
  const resolved: Record<string, number> = { ...DEFAULT_ALARM_THRESHOLDS, ...withoutUndefined(given) };
  for (const [name, value] of Object.entries(resolved)) {
    // A token (a parameter) is known only at deployment.
    if (Token.isUnresolved(value)) continue;
    const percentage = name.endsWith('Percent');
    if (!Number.isFinite(value) || value < 0) {
      fail(`monitoring.thresholds.${name} must be a number of at least 0, got ${String(value)}.`);
    } else if (percentage && value > 100) {
      fail(`monitoring.thresholds.${name} is a percentage (0–100), got ${value}.`);
    } else {
      continue;
    }
    resolved[name] = DEFAULT_ALARM_THRESHOLDS[name as keyof SwitchboardAlarmThresholds];
  }
  return resolved as Required<SwitchboardAlarmThresholds>;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * CloudWatch namespaces: 1–255 characters, no leading colon, not `AWS/…`. Reports the problem and
 * returns true when `namespace` is not one (a token is left to deployment).
 */
function namespaceProblem(namespace: string, fail: (message: string) => void): boolean {
  if (Token.isUnresolved(namespace)) return false;
  if (!/^[A-Za-z0-9.\-_/#:]{1,255}$/.test(namespace) || namespace.startsWith('AWS/')) {
    fail(
      `monitoring.namespace "${namespace}" is not a CloudWatch namespace of your own (letters, digits, . - _ / # :, not AWS/).`,
    );
    return true;
  }
  return false;
}
