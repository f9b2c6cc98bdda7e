import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRIC_UNITS } from '../config/index.ts';
import type { EmfDocument, MetricPoint } from './metrics.ts';

/** Powertools publishes a metric on its own once it holds this many values of it: a document never gets that far. */
const MAX_VALUES_PER_METRIC = 100;

/**
 * The EMF documents of a set of points: one per set of dimensions (and more when a metric has more
 * than a hundred values), each validated and laid out by Powertools' Metrics. Loaded with `import()`
 * by {@link MetricsRecorder.flush}: Powertools is in no function's start-up code.
 */
export function emfDocuments(
  points: MetricPoint[],
  options: { namespace: string; service: string },
): EmfDocument[] {
  const groups = new Map<string, MetricPoint[][]>();
  for (const point of points) {
    const key = JSON.stringify(point.dimensions ?? {});
    const chunks = groups.get(key) ?? [[]];
    let last = chunks[chunks.length - 1] as MetricPoint[];
    if (last.filter((p) => p.name === point.name).length >= MAX_VALUES_PER_METRIC - 1) {
      last = [];
      chunks.push(last);
    }
    last.push(point);
    groups.set(key, chunks);
  }
  const documents: EmfDocument[] = [];
  for (const chunks of groups.values()) {
    for (const chunk of chunks) {
      const metrics = new Metrics({
        namespace: options.namespace,
        serviceName: options.service,
        defaultDimensions: { ...chunk[0]?.dimensions },
      });
      for (const point of chunk) metrics.addMetric(point.name, METRIC_UNITS[point.name], point.value);
      documents.push(metrics.serializeMetrics());
    }
  }
  return documents;
}
