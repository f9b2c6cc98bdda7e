import type { IncomingMessage, ServerResponse } from 'node:http';
import { METRIC_UNITS, type MetricDimensions, type MetricName } from '../lib/config/index.ts';
import type { EmfDocument, MetricsSink } from '../lib/telemetry/index.ts';

/** Where the sandbox serves what its functions published: {@link MetricsCollector.summary} as JSON. */
export const METRICS_PATH = '/sandbox/metrics';

/** A metric's values in one document: EMF holds one value as a number and several as an array. */
function valuesIn(document: EmfDocument, name: MetricName): number[] {
  const value = (document as Record<string, unknown>)[name];
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

function hasDimensions(document: EmfDocument, dimensions: MetricDimensions | undefined): boolean {
  const fields = document as Record<string, unknown>;
  return Object.entries(dimensions ?? {}).every(([key, value]) => fields[key] === value);
}

/** The dimensions of a document besides `service`, as `{StopReason=end_turn}`; empty without any. */
function dimensionLabel(document: EmfDocument): string {
  const names = (document._aws.CloudWatchMetrics[0]?.Dimensions[0] ?? []).filter((n) => n !== 'service');
  const fields = document as Record<string, unknown>;
  return names.length === 0 ? '' : `{${names.map((n) => `${n}=${String(fields[n])}`).join(',')}}`;
}

/** One document as one readable line: `metrics TurnsStarted=1 TurnDuration=820ms BytesSent=2.1KB`. */
export function readableMetrics(document: EmfDocument): string {
  const parts: string[] = [];
  for (const name of Object.keys(METRIC_UNITS) as MetricName[]) {
    const values = valuesIn(document, name);
    if (values.length === 0) continue;
    const unit = METRIC_UNITS[name];
    const shown = values.map((v) =>
      unit === 'Milliseconds'
        ? `${Math.round(v)}ms`
        : unit === 'Bytes'
          ? `${(v / 1024).toFixed(1)}KB`
          : `${v}`,
    );
    parts.push(`${name}=${shown.join('+')}`);
  }
  return `metrics${dimensionLabel(document)} ${parts.join(' ')}`;
}

/**
 * What the sandbox's functions published, read back: every EMF document (one per turn, one per API
 * invocation that recorded something), as CloudWatch would receive them from the functions' logs.
 * Tests read it through `sandbox.metrics`; anyone else at `GET /sandbox/metrics`.
 */
export class MetricsCollector {
  readonly documents: EmfDocument[] = [];

  /** @param print - also writes each document as a readable line (the sandbox does at log level INFO or DEBUG). */
  constructor(private readonly print?: (line: string) => void) {}

  /** The sink the sandbox's functions publish to. */
  readonly sink: MetricsSink = (document) => {
    this.documents.push(document);
    this.print?.(readableMetrics(document));
  };

  /** Every value of a metric published so far, oldest first, only from documents with `dimensions` when given. */
  values(name: MetricName, dimensions?: MetricDimensions): number[] {
    return this.documents.filter((d) => hasDimensions(d, dimensions)).flatMap((d) => valuesIn(d, name));
  }

  /** The sum of a metric's values (a count's total). */
  sum(name: MetricName, dimensions?: MetricDimensions): number {
    return this.values(name, dimensions).reduce((total, value) => total + value, 0);
  }

  /** Totals by metric and dimensions (`TurnsEnded{StopReason=end_turn}`), and how many documents there were. */
  summary(): { documents: number; totals: Record<string, number> } {
    const totals: Record<string, number> = {};
    for (const document of this.documents) {
      const label = dimensionLabel(document);
      for (const name of Object.keys(METRIC_UNITS) as MetricName[]) {
        for (const value of valuesIn(document, name)) {
          totals[`${name}${label}`] = (totals[`${name}${label}`] ?? 0) + value;
        }
      }
    }
    return { documents: this.documents.length, totals };
  }

  /** Serves {@link summary} at {@link METRICS_PATH}; returns true when it answered. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if ((req.url ?? '/').split('?')[0] !== METRICS_PATH || req.method !== 'GET') return false;
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`${JSON.stringify(this.summary(), null, 2)}\n`);
    return true;
  }
}
