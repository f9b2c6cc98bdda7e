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
let custom: Resources;
let none: Resources;

beforeAll(() => {
  defaults = synthSwitchboard().resources;
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
  };
}

/** The logical id a dimension of an alarm refers to. */
const dimensionTarget = (alarm: AlarmProps | undefined, name: string) =>
  refOf(alarm?.Dimensions?.find((d) => d.Name === name)?.Value);

describe('alarms, by default', () => {
  it('creates the eight alarms: dead letters (present and new), worker errors and throttles, queue age, 5xx on both APIs, sweep failures', () => {
    expect(Object.keys(alarms(defaults)).sort()).toEqual([
      'DeadLetterArrivals',
      'DeadLetterQueue',
      'HttpServerErrors',
      'QueueAge',
      'SweepErrors',
      'WebSocketErrors',
      'WorkerErrors',
      'WorkerThrottles',
    ]);
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
    expect(expressions).toEqual([
      `SEARCH('{Switchboard,service,StopReason} MetricName="TurnsEnded"', 'Sum', 300)`,
    ]);
    expect(alarmRefs.sort()).toEqual(idsOfType(defaults, 'AWS::CloudWatch::Alarm').sort());
  });

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
