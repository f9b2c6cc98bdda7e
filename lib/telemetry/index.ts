export { openTrace, type Trace, traced } from './invocation.ts';
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
