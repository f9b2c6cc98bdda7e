export {
  addLogKeys,
  ContextLogFormatter,
  enterLogKeys,
  type LogKeys,
  logKeys,
  withLogKeys,
} from './log-context.ts';
export {
  DEFAULT_SERVICE_NAME,
  type EmfDocument,
  METRICS_NAMESPACE,
  type MetricPoint,
  MetricsRecorder,
  type MetricsSink,
  stdoutSink,
} from './metrics.ts';
export {
  currentTraceparent,
  eventsOfCurrentSpan,
  flushTraces,
  invocationLink,
  linksTo,
  openTrace,
  type SpanAttributes,
  SpanKind,
  type SpanStart,
  spanAttributes,
  spanEvent,
  type Trace,
  traced,
} from './tracing.ts';
