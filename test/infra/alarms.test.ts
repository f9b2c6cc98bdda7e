import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ALARM_THRESHOLDS, type SwitchboardMonitoringProps } from '../../infra/monitoring.ts';
import { TURNS_MAX_RECEIVE_COUNT } from '../../infra/storage.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  environmentOf,
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  type Resources,
  refOf,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
  TEST_AUTH,
} from './template-helpers.ts';

const TEAM_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:team-pager';

/** A stack whose Switchboard has the `monitoring` prop `props` makes in it (tracing off). */
function synthWith(props: (stack: Stack) => SwitchboardMonitoringProps | false): Resources {
  const stack = newStack();
  new Switchboard(stack, 'Switchboard', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    monitoring: props(stack),
  });
  return Template.fromStack(stack).toJSON().Resources as Resources;
}

let defaults: Resources;
let anonymous: Resources;
let custom: Resources;
let none: Resources;

beforeAll(() => {
  defaults = synthSwitchboard().resources;
  anonymous = synthSwitchboard({ anonymous: true }).resources;
  custom = synthWith((stack) => ({
    alarmTopic: Topic.fromTopicArn(stack, 'Pager', TEAM_TOPIC),
    notifyOnOk: false,
    thresholds: { queueAgeSeconds: 60, httpServerErrorPercent: 1 },
    dashboard: false,
    namespace: 'Team/Assistant',
  }));
  none = synthWith(() => false);
}, SYNTH_TIMEOUT_MS);

type AlarmProps = {
  MetricName?: string;
  Namespace?: string;
  Threshold?: number;
  Statistic?: string;
  Period?: number;
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string } } }[];
  AlarmActions?: unknown[];
  OKActions?: unknown[];
  ComparisonOperator?: string;
  TreatMissingData?: string;
};

/** The alarms of a template, by the logical id's stem (`SwitchboardMonitoringQueueAgeAlarm…` → `QueueAge`). */
function alarms(resources: Resources): Record<string, AlarmProps> {
  return Object.fromEntries(
    idsOfType(resources, 'AWS::CloudWatch::Alarm').map((id) => [
      /Monitoring(\w+?)Alarm/.exec(id)?.[1] ?? id,
      resources[id]?.Properties as AlarmProps,
    ]),
  );
}

/**
 * A dashboard's widgets, read from its body (a join of strings and references): the metrics it graphs
 * as `namespace/name`, its expressions, and the alarms it shows by logical id.
 */
function dashboardOf(resources: Resources) {
  const [id] = idsOfType(resources, 'AWS::CloudWatch::Dashboard');
  const body = resources[id as string]?.Properties?.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const join = body['Fn::Join'];
  const alarmRefs: string[] = [];
  const text = join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = refOf(part) ?? 'ref';
      if (resources[ref]?.Type === 'AWS::CloudWatch::Alarm') alarmRefs.push(ref);
      return ref;
    })
    .join('');
  const widgets = (JSON.parse(text) as { widgets: { properties: { metrics?: unknown[][] } }[] }).widgets;
  const lines = widgets.flatMap((w) => w.properties.metrics ?? []);
  return {
    metrics: lines.filter((l) => typeof l[0] === 'string').map((l) => `${l[0]}/${l[1]}`),
    expressions: lines.map((l) => (l[0] as { expression?: string }).expression).filter(Boolean),
    alarmRefs,
    refs: join[1].map((part) => refOf(part)).filter(Boolean) as string[],
  };
}

/** The logical id a dimension of an alarm refers to. */
const dimensionTarget = (alarm: AlarmProps | undefined, name: string) =>
  refOf(alarm?.Dimensions?.find((d) => d.Name === name)?.Value);

describe('alarms, by default', () => {
  const EVERY_STACK = [
    'AguiErrors',
    'AguiThrottles',
    'DeadLetterArrivals',
    'DeadLetterQueue',
    'EventsNotPublished',
    'HttpServerErrors',
    'HttpUnauthorized',
    'McpServersUnavailable',
    'QueueAge',
    'SweepErrors',
    'SweepNotInvoked',
    'TableThrottles',
    'WebSocketErrors',
    'WorkerErrors',
    'WorkerThrottles',
  ];

  it("alarms on dead letters, the worker, the queue, both APIs' 5xx and 401s, the sweep, the table, domain events and the AG-UI and authoriser functions", () => {
    expect(Object.keys(alarms(defaults)).sort()).toEqual(
      [...EVERY_STACK, 'AuthorizerErrors', 'AuthorizerThrottles'].sort(),
    );
  });

  it('has no authoriser alarms in an anonymous stack (it has no authoriser), and the rest', () => {
    expect(Object.keys(alarms(anonymous)).sort()).toEqual(EVERY_STACK);
  });

  it.each([
    ['built-in auth', () => defaults, ['Agui', 'Authorizer']],
    ['anonymous', () => anonymous, ['Agui']],
  ] as const)('watches errors and throttles of the AG-UI and authoriser functions (%s)', (_, of, names) => {
    const a = alarms(of());
    for (const name of names) {
      const fn = name === 'Agui' ? 'AgUiFunction' : 'AuthorizerFunction';
      expect(a[`${name}Errors`], name).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Threshold: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(dimensionTarget(a[`${name}Errors`], 'FunctionName')).toMatch(new RegExp(`^Switchboard${fn}`));
      expect(a[`${name}Throttles`]).toMatchObject({ MetricName: 'Throttles', Threshold: 1 });
      expect(dimensionTarget(a[`${name}Throttles`], 'FunctionName')).toMatch(new RegExp(`^Switchboard${fn}`));
    }
  });

  it.each([
    ['built-in auth', () => defaults],
    ['anonymous', () => anonymous],
  ])('goes off when the sweep is not invoked for 5 minutes, missing data included (%s)', (_, of) => {
    const alarm = alarms(of()).SweepNotInvoked;
    expect(alarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(dimensionTarget(alarm, 'FunctionName')).toMatch(/^SwitchboardSweepFunction/);
    // A period a bit longer than the schedule's: several ticks missed, not one late.
    const [rule] = idsOfType(of(), 'AWS::Events::Rule');
    expect(of()[rule as string]?.Properties?.ScheduleExpression).toBe('rate(1 minute)');
  });

  it.each([
    ['built-in auth', () => defaults],
    ['anonymous', () => anonymous],
  ])("judges 401s as a rate of the HTTP API's requests, counted from its access log (%s)", (_, of) => {
    const resources = of();
    const [filterId] = idsOfType(resources, 'AWS::Logs::MetricFilter');
    const filter = resources[filterId as string]?.Properties as {
      LogGroupName: unknown;
      FilterPattern: string;
      MetricTransformations: { MetricName: string; MetricNamespace: string; MetricValue: string }[];
    };
    expect(filter.FilterPattern).toBe('{ $.status = 401 }');
    expect(filter.MetricTransformations).toEqual([
      expect.objectContaining({
        MetricName: 'HttpUnauthorized',
        MetricNamespace: 'Switchboard',
        MetricValue: '1',
      }),
    ]);
    const logGroup = refOf(filter.LogGroupName) as string;
    const [stage] = idsOfType(resources, 'AWS::ApiGatewayV2::Stage').filter(
      (id) => (resources[id]?.Properties?.StageName as string) === '$default',
    );
    const accessLog = resources[stage as string]?.Properties?.AccessLogSettings as {
      DestinationArn: unknown;
    };
    expect(refOf(accessLog.DestinationArn)).toBe(logGroup);
    const alarm = alarms(resources).HttpUnauthorized;
    expect(alarm?.Threshold).toBe(DEFAULT_ALARM_THRESHOLDS.unauthorizedPercent);
    expect(alarm?.Metrics?.find((m) => m.Expression)?.Expression).toBe(
      'IF(requests >= 20, 100 * unauthorized / requests, 0)',
    );
    expect(
      alarm?.Metrics?.map((m) => m.MetricStat?.Metric.MetricName)
        .filter(Boolean)
        .sort(),
    ).toEqual(['Count', 'HttpUnauthorized']);
  });

  it.each([
    ['built-in auth', () => defaults],
    ['anonymous', () => anonymous],
  ])("alarms on the table's read and write throttle events (%s)", (_, of) => {
    const resources = of();
    const alarm = alarms(resources).TableThrottles;
    const [table] = idsOfType(resources, 'AWS::DynamoDB::GlobalTable');
    expect(alarm?.Threshold).toBe(DEFAULT_ALARM_THRESHOLDS.tableThrottleEvents);
    expect(alarm?.Metrics?.find((m) => m.Expression)?.Expression).toBe('reads + writes');
    const stats = (alarm?.Metrics ?? []).filter((m) => m.MetricStat);
    expect(stats.map((m) => m.MetricStat?.Metric.MetricName).sort()).toEqual([
      'ReadThrottleEvents',
      'WriteThrottleEvents',
    ]);
    for (const m of stats) expect(JSON.stringify(m)).toContain(table);
  });

  it.each([
    ['built-in auth', () => defaults],
    ['anonymous', () => anonymous],
  ])("alarms on domain events not published, the runtime's own metric (%s)", (_, of) => {
    expect(alarms(of()).EventsNotPublished).toMatchObject({
      Namespace: 'Switchboard',
      MetricName: 'EventsNotPublished',
      Statistic: 'Sum',
      Threshold: 1,
    });
  });

  it('says in every alarm what to do, and where to read more', () => {
    for (const resources of [defaults, anonymous]) {
      for (const [name, alarm] of Object.entries(alarms(resources))) {
        const description = (alarm as { AlarmDescription?: string }).AlarmDescription ?? '';
        expect(description, name).toMatch(/^Switchboard: /);
        expect(description, name).toContain('docs/operations.md');
      }
    }
  });

  it("alarms on each new dead letter: a rise of the queue's visible messages, by metric math", () => {
    const arrivals = alarms(defaults).DeadLetterArrivals;
    const [dlq] = idsOfType(defaults, 'AWS::SQS::Queue').filter((id) => /Dlq|DeadLetter/i.test(id));
    expect(arrivals).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const expression = arrivals?.Metrics?.find((m) => m.Expression);
    expect(expression?.Expression).toBe('DIFF(visible)');
    const visible = arrivals?.Metrics?.find((m) => m.Id === 'visible');
    expect(visible?.MetricStat?.Metric.MetricName).toBe('ApproximateNumberOfMessagesVisible');
    expect(JSON.stringify(visible)).toContain(dlq);
  });

  it("says in the dead-letter alarm's text how many deliveries a job failed: the queue's redrive count", () => {
    const [queue] = idsOfType(defaults, 'AWS::SQS::Queue').filter(
      (id) => (defaults[id]?.Properties?.RedrivePolicy as object | undefined) !== undefined,
    );
    const redrive = defaults[queue ?? '']?.Properties?.RedrivePolicy as { maxReceiveCount: number };
    expect(redrive.maxReceiveCount).toBe(TURNS_MAX_RECEIVE_COUNT);
    const description = (alarms(defaults).DeadLetterQueue as { AlarmDescription?: string }).AlarmDescription;
    expect(description).toContain(`each failed ${redrive.maxReceiveCount} deliveries`);
  });

  it('watches the right resources with the documented thresholds', () => {
    const a = alarms(defaults);
    const [dlq] = idsOfType(defaults, 'AWS::SQS::Queue').filter((id) => /Dlq|DeadLetter/i.test(id));
    expect(a.DeadLetterQueue).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: DEFAULT_ALARM_THRESHOLDS.deadLetterMessages,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(JSON.stringify(a.DeadLetterQueue?.Dimensions)).toContain(dlq);
    expect(a.QueueAge).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 300 });
    expect(a.WorkerErrors).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Threshold: 1 });
    expect(dimensionTarget(a.WorkerErrors, 'FunctionName')).toMatch(/^SwitchboardWorkerFunction/);
    expect(a.WorkerThrottles).toMatchObject({ MetricName: 'Throttles', Threshold: 1 });
    expect(dimensionTarget(a.WorkerThrottles, 'FunctionName')).toMatch(/^SwitchboardWorkerFunction/);
    expect(a.SweepErrors).toMatchObject({ MetricName: 'Errors', Threshold: 3, Period: 900 });
    expect(dimensionTarget(a.SweepErrors, 'FunctionName')).toMatch(/^SwitchboardSweepFunction/);
  });

  it('judges 5xx as a rate of the requests on both APIs, only past a minimum of requests', () => {
    const a = alarms(defaults);
    const http = a.HttpServerErrors?.Metrics ?? [];
    expect(http.find((m) => m.Expression)?.Expression).toBe(
      'IF(requests >= 20, 100 * (errors) / requests, 0)',
    );
    expect(
      http
        .map((m) => m.MetricStat?.Metric.MetricName)
        .filter(Boolean)
        .sort(),
    ).toEqual(['5xx', 'Count']);
    expect(a.HttpServerErrors?.Threshold).toBe(5);
    const ws = a.WebSocketErrors?.Metrics ?? [];
    expect(
      ws
        .map((m) => m.MetricStat?.Metric.MetricName)
        .filter(Boolean)
        .sort(),
    ).toEqual(['ConnectCount', 'ExecutionError', 'IntegrationError', 'MessageCount']);
    expect(a.WebSocketErrors?.Threshold).toBe(5);
  });

  it('notifies a new topic, encrypted with a rotated key CloudWatch may use, on alarm and on OK', () => {
    const [topic] = idsOfType(defaults, 'AWS::SNS::Topic');
    expect(topic).toBeDefined();
    const key = refOf(defaults[topic as string]?.Properties?.KmsMasterKeyId);
    expect(defaults[key as string]).toMatchObject({
      Type: 'AWS::KMS::Key',
      Properties: { EnableKeyRotation: true },
    });
    expect(JSON.stringify(defaults[key as string]?.Properties?.KeyPolicy)).toContain(
      'cloudwatch.amazonaws.com',
    );
    for (const [name, alarm] of Object.entries(alarms(defaults))) {
      expect(alarm.AlarmActions?.map(refOf), name).toEqual([topic]);
      expect(alarm.OKActions?.map(refOf), name).toEqual([topic]);
    }
  });

  it('builds a dashboard of the runtime metrics, the queue, the worker, both APIs and the alarms', () => {
    const { metrics, expressions, alarmRefs } = dashboardOf(defaults);
    for (const metric of [
      'TurnsStarted',
      'TurnsFailed',
      'TimeToFirstEvent',
      'TurnDuration',
      'EventsSent',
      'BytesSent',
      'PostToConnectionGone',
      'PostToConnectionThrottled',
      'PendingActionsOpened',
      'PendingActionsExpired',
      'BudgetRefusals',
      'CostUsd',
    ]) {
      expect(metrics, metric).toContain(`Switchboard/${metric}`);
    }
    for (const metric of [
      'AWS/SQS/ApproximateAgeOfOldestMessage',
      'AWS/Lambda/Throttles',
      'AWS/ApiGateway/5xx',
    ]) {
      expect(metrics, metric).toContain(metric);
    }
    expect(metrics).toContain('AWS/ApiGateway/IntegrationError');
    for (const metric of [
      'AWS/Lambda/Invocations',
      'AWS/DynamoDB/ReadThrottleEvents',
      'AWS/DynamoDB/WriteThrottleEvents',
      'Switchboard/HttpUnauthorized',
      'Switchboard/EventsNotPublished',
      'Switchboard/McpServersUnavailable',
    ]) {
      expect(metrics, metric).toContain(metric);
    }
    expect(expressions).toEqual([
      `SEARCH('{Switchboard,service,StopReason} MetricName="TurnsEnded"', 'Sum', 300)`,
    ]);
    expect(alarmRefs.sort()).toEqual(idsOfType(defaults, 'AWS::CloudWatch::Alarm').sort());
  });

  it.each([
    ['built-in auth', () => defaults, ['AgUiFunction', 'AuthorizerFunction', 'SweepFunction']],
    ['anonymous', () => anonymous, ['AgUiFunction', 'SweepFunction']],
  ] as const)(
    'graphs the AG-UI and authoriser functions and the sweep on the dashboard (%s)',
    (_, of, fns) => {
      const { refs } = dashboardOf(of());
      for (const fn of fns)
        expect(
          refs.some((r) => r.startsWith(`Switchboard${fn}`)),
          fn,
        ).toBe(true);
    },
  );

  it('tells every runtime function the metrics namespace, the service and that tracing is on', () => {
    for (const fn of ['Http', 'WebSocket', 'Worker', 'Sweep']) {
      const [id] = idsOfType(defaults, 'AWS::Lambda::Function').filter((i) =>
        i.startsWith(`Switchboard${fn}Function`),
      );
      expect(environmentOf(defaults, id as string), fn).toMatchObject({
        POWERTOOLS_METRICS_NAMESPACE: 'Switchboard',
        POWERTOOLS_SERVICE_NAME: 'switchboard',
        SWITCHBOARD_TRACING: 'true',
      });
    }
  });
});

describe('alarms, as configured', () => {
  it('notifies the team’s own topic, on alarm only, creating no topic or key', () => {
    expect(idsOfType(custom, 'AWS::SNS::Topic')).toEqual([]);
    expect(idsOfType(custom, 'AWS::KMS::Key')).toEqual([]);
    for (const alarm of Object.values(alarms(custom))) {
      expect(alarm.AlarmActions).toEqual([TEAM_TOPIC]);
      expect(alarm.OKActions).toBeUndefined();
    }
  });

  it('applies the given thresholds and keeps the defaults of the others', () => {
    const a = alarms(custom);
    expect(a.QueueAge?.Threshold).toBe(60);
    expect(a.HttpServerErrors?.Threshold).toBe(1);
    expect(a.WorkerErrors?.Threshold).toBe(DEFAULT_ALARM_THRESHOLDS.workerErrors);
  });

  it('leaves the dashboard out, publishes under the given namespace, and leaves tracing off', () => {
    expect(idsOfType(custom, 'AWS::CloudWatch::Dashboard')).toEqual([]);
    const [worker] = idsOfType(custom, 'AWS::Lambda::Function').filter((i) =>
      i.startsWith('SwitchboardWorkerFunction'),
    );
    const environment = environmentOf(custom, worker as string);
    expect(environment.POWERTOOLS_METRICS_NAMESPACE).toBe('Team/Assistant');
    expect(environment.SWITCHBOARD_TRACING).toBeUndefined();
  });

  it('creates no alarm, topic or dashboard with monitoring: false', () => {
    for (const type of [
      'AWS::CloudWatch::Alarm',
      'AWS::CloudWatch::Dashboard',
      'AWS::SNS::Topic',
      'AWS::KMS::Key',
    ]) {
      expect(idsOfType(none, type), type).toEqual([]);
    }
  });

  it(
    'fails the synth on thresholds and namespaces that cannot work, naming each setting',
    () => {
      const stack = newStack();
      new Switchboard(stack, 'Switchboard', {
        agents: FIXTURE_AGENTS,
        auth: TEST_AUTH,
        monitoring: {
          thresholds: { workerErrors: -1, queueAgeSeconds: Number.NaN, httpServerErrorPercent: 150 },
          namespace: 'AWS/Lambda',
        },
      });
      let message = '';
      try {
        Template.fromStack(stack);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/Validation failed/);
      expect(message).toMatch(/monitoring\.thresholds\.workerErrors/);
      expect(message).toMatch(/monitoring\.thresholds\.queueAgeSeconds/);
      expect(message).toMatch(/monitoring\.thresholds\.httpServerErrorPercent is a percentage/);
      expect(message).toMatch(/monitoring\.namespace "AWS\/Lambda"/);
    },
    SYNTH_TIMEOUT_MS,
  );
});
