import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricDimensions, MetricName, RuntimeMetrics } from '../config/index.ts';

/** The namespace of every Switchboard metric in CloudWatch (the construct's dashboard and alarms read it). */
export const METRICS_NAMESPACE = 'Switchboard';

/** The `service` dimension of every metric and every log line, unless `POWERTOOLS_SERVICE_NAME` says otherwise. */
export const DEFAULT_SERVICE_NAME = 'switchboard';

/** One value recorded, not yet published. */
export interface MetricPoint {
  name: MetricName;
  value: number;
  dimensions?: MetricDimensions;
}

/** One CloudWatch embedded metric format document, as Powertools serialises it. */
export type EmfDocument = ReturnType<Metrics['serializeMetrics']>;

/** Where published metrics go: a JSON line on stdout (Lambda), or the sandbox's collector. */
export type MetricsSink = (document: EmfDocument) => void;

/** Writes one EMF document as one line of stdout, where CloudWatch Logs finds it in a function's log. */
export const stdoutSink: MetricsSink = (document) => {
  process.stdout.write(`${JSON.stringify(document)}\n`);
};

/** Options of a {@link MetricsRecorder}. */
export interface MetricsRecorderOptions {
  /** Default {@link METRICS_NAMESPACE}. */
  namespace?: string;
  /** The `service` dimension. Default {@link DEFAULT_SERVICE_NAME}. */
  service?: string;
  /** Default {@link stdoutSink}. */
  sink?: MetricsSink;
  /** Told when metrics could not be published; publishing never fails a request or a turn. */
  onError?: (error: unknown) => void;
}

/**
 * The runtime's metrics: values are gathered as they happen and published together by
 * {@link MetricsRecorder.flush} (at the end of each turn and each invocation), as CloudWatch embedded
 * metric format documents built by Powertools' Metrics. Powertools is loaded with `import()` on the
 * first flush, so it is not part of any function's start-up code; and it publishes through a sink
 * rather than its own console, so that the sandbox can read the documents back.
 *
 * @example
 * ```ts
 * rt.metrics.add('TurnsEnded', 1, { StopReason: 'end_turn' });
 * await rt.metrics.flush();
 * ```
 */
export class MetricsRecorder implements RuntimeMetrics {
  #points: MetricPoint[] = [];
  readonly #namespace: string;
  readonly #service: string;
  readonly #sink: MetricsSink;
  readonly #onError: (error: unknown) => void;

  constructor(options: MetricsRecorderOptions = {}) {
    this.#namespace = options.namespace ?? METRICS_NAMESPACE;
    this.#service = options.service ?? DEFAULT_SERVICE_NAME;
    this.#sink = options.sink ?? stdoutSink;
    this.#onError = options.onError ?? (() => {});
  }

  /** Records one value; a value that is not a finite number is dropped (CloudWatch would refuse it). */
  add(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    if (!Number.isFinite(value)) return;
    this.#points.push({ name, value, ...(dimensions && { dimensions }) });
  }

  /** Publishes what was recorded since the last flush; resolves even when publishing failed. */
  async flush(): Promise<void> {
    if (this.#points.length === 0) return;
    const points = this.#points;
    this.#points = [];
    try {
      const { emfDocuments } = await import('./emf.ts');
      for (const document of emfDocuments(points, { namespace: this.#namespace, service: this.#service })) {
        this.#sink(document);
      }
    } catch (error) {
      this.#onError(error);
    }
  }
}
