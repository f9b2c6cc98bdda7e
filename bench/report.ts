/** Small helpers of the bench: percentiles, windows, number formats and the printed table. */

/** The q-quantile (0…1) of `xs` by nearest rank; NaN for none. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

export const mean = (xs: readonly number[]) =>
  xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN;

/**
 * How many flushes a coalescer with a window of `windowMs` makes for events at `times`: a window
 * opens at the first event not yet covered and takes every event within `windowMs` of it (the
 * non-empty windows, aligned as a timer started by the first event aligns them).
 */
export function windowsOf(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let windows = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const t of sorted) {
    if (windowMs > 0 && t < end) continue;
    windows += 1;
    end = t + windowMs;
  }
  return windows;
}

/** A number with `digits` decimals; ∞ for infinity, an em dash for NaN. */
export function fmt(x: number, digits = 1): string {
  if (x === Number.POSITIVE_INFINITY) return '∞';
  return Number.isFinite(x) ? x.toFixed(digits) : '—';
}

/** Dollars, with two decimals (or four below a dollar). */
export const usd = (x: number) => (Number.isFinite(x) ? `$${x < 1 ? x.toFixed(4) : x.toFixed(2)}` : '—');

/** A printed table: a title line, then rows of left-aligned cells padded to each column's width. */
export class Table {
  readonly #rows: (string[] | string)[] = [];

  constructor(readonly columns: string[]) {}

  /** A row of cells. */
  row(...cells: (string | number)[]): this {
    this.#rows.push(cells.map(String));
    return this;
  }

  /** A line across the table (a section title). */
  section(title: string): this {
    this.#rows.push(title);
    return this;
  }

  toString(): string {
    const cells = [this.columns, ...this.#rows.filter((r): r is string[] => Array.isArray(r))];
    const widths = this.columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
    const line = (r: string[]) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd();
    const total = widths.reduce((a, b) => a + b + 2, 0);
    const out = [line(this.columns), '-'.repeat(total)];
    for (const r of this.#rows) out.push(Array.isArray(r) ? line(r) : `\n== ${r} ==`);
    return out.join('\n');
  }
}

/** A goal's verdict: met when `figure` is within `target` by `compare`. */
export function verdict(figure: number, target: number, compare: '<=' | '<' = '<='): string {
  if (Number.isNaN(figure) || Number.isNaN(target)) return 'NOT met (not measured)';
  return (compare === '<=' ? figure <= target : figure < target) ? 'met' : 'NOT met';
}
