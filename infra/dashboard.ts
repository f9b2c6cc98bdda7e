import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { MonitoredParts, RuntimeMetric } from './monitoring.ts';

/** The metric the HTTP API's access log gives of its 401 answers (a metric filter), in the runtime's namespace. */
export const UNAUTHORIZED_METRIC = 'HttpUnauthorized';

/** What the dashboard shows. */
export interface DashboardSource {
  readonly parts: MonitoredParts;
  readonly metrics: RuntimeMetric;
  readonly alarms: Alarm[];
  readonly dashboardName?: string;
}

const graph = (title: string, left: IMetric[], right: IMetric[] = [], width = 8) =>
  new GraphWidget({ title, left, right, width, height: 6 });

/**
 * The runtime at a glance, top to bottom: alarms; turns (started, ended by stop reason, failed, how
 * long they took and to their first event, what they cost); delivery to the hosts (events, bytes,
 * PostToConnection failures); pauses and budget refusals; the queue and the worker; both APIs; the
 * AG-UI and `$connect` authoriser functions, the sweep's invocations, 401s, table throttling and
 * domain events not published.
 */
export function createDashboard(scope: Construct, id: string, source: DashboardSource): Dashboard {
  const { parts, metrics: m } = source;
  const { worker } = parts.functions;
  const period = Duration.minutes(5);
  const turnsByReason = new MathExpression({
    expression: `SEARCH('{${m('TurnsEnded').namespace},service,StopReason} MetricName="TurnsEnded"', 'Sum', 300)`,
    usingMetrics: {},
    label: '',
    period,
  });
  const ws = (metricName: string) =>
    new Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      dimensionsMap: { ApiId: parts.webSocketApi.apiId, Stage: parts.webSocketStage.stageName },
      statistic: 'Sum',
      period,
    });
  const dashboard = new Dashboard(scope, id, {
    ...(source.dashboardName && { dashboardName: source.dashboardName }),
    defaultInterval: Duration.hours(3),
  });
  dashboard.addWidgets(
    new TextWidget({
      markdown:
        '# Switchboard\nTurns, delivery, pauses and cost from the runtime (EMF); the queue, the worker and both APIs from AWS. What each alarm means: docs/operations.md.',
      width: 24,
      height: 2,
    }),
  );
  if (source.alarms.length > 0) {
    dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: source.alarms, width: 24, height: 3 }),
    );
  }
  dashboard.addWidgets(
    graph('Turns', [m('TurnsStarted'), m('TurnsCompleted'), m('TurnsFailed')]),
    graph('Turns ended, by stop reason', [turnsByReason]),
    graph('Cost (USD)', [m('CostUsd')], [m('BudgetRefusals')]),
  );
  dashboard.addWidgets(
    graph('Time to first event (ms)', [m('TimeToFirstEvent', 'p50'), m('TimeToFirstEvent', 'p90')]),
    graph('Turn duration (ms)', [
      m('TurnDuration', 'p50'),
      m('TurnDuration', 'p90'),
      m('TurnDuration', 'Maximum'),
    ]),
    graph('Pauses', [m('PendingActionsOpened'), m('PendingActionsResolved'), m('PendingActionsExpired')]),
  );
  dashboard.addWidgets(
    graph('Events sent', [m('EventsSent')], [m('BytesSent')]),
    graph('PostToConnection failures', [
      m('PostToConnectionGone'),
      m('PostToConnectionThrottled'),
      m('PostToConnectionFailed'),
    ]),
    graph(
      'Turns queue',
      [
        parts.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        parts.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      ],
      [parts.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' })],
    ),
  );
  dashboard.addWidgets(
    graph(
      'Worker',
      [
        worker.metricInvocations({ period }),
        worker.metricErrors({ period }),
        worker.metricThrottles({ period }),
        parts.functions.sweep.metricErrors({ period, label: 'Sweep errors' }),
      ],
      [worker.metricDuration({ period, statistic: 'p90' })],
    ),
    graph(
      'HTTP API',
      [
        parts.httpApi.metricCount({ period, statistic: 'Sum' }),
        parts.httpApi.metricClientError({ period, statistic: 'Sum' }),
        parts.httpApi.metricServerError({ period, statistic: 'Sum' }),
      ],
      [parts.httpApi.metricLatency({ period, statistic: 'p90' })],
    ),
    graph('WebSocket API', [
      ws('ConnectCount'),
      ws('MessageCount'),
      ws('IntegrationError'),
      ws('ExecutionError'),
      ws('ClientError'),
    ]),
  );
  const lambdaFunctions = [
    ...(parts.aguiFunction ? [['AG-UI', parts.aguiFunction] as const] : []),
    ...(parts.authorizerFunction ? [['Authoriser', parts.authorizerFunction] as const] : []),
    ['Sweep', parts.functions.sweep] as const,
  ];
  dashboard.addWidgets(
    graph(
      'AG-UI, authoriser and sweep',
      lambdaFunctions.flatMap(([name, fn]) => [
        fn.metricInvocations({ period, label: `${name} invocations` }),
        fn.metricErrors({ period, label: `${name} errors` }),
        fn.metricThrottles({ period, label: `${name} throttles` }),
      ]),
    ),
    graph('HTTP 401s', [
      new Metric({
        namespace: m('TurnsStarted').namespace,
        metricName: UNAUTHORIZED_METRIC,
        statistic: 'Sum',
        period,
        label: '401 answers',
      }),
    ]),
    graph(
      'Table throttling, domain events and MCP servers',
      [
        parts.table.metric('ReadThrottleEvents', { period, statistic: 'Sum' }),
        parts.table.metric('WriteThrottleEvents', { period, statistic: 'Sum' }),
      ],
      [m('EventsNotPublished'), m('McpServersUnavailable')],
    ),
  );
  return dashboard;
}
