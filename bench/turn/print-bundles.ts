import type { BundleReport } from '../bundles.ts';
import { fmt, type Table, verdict } from '../report.ts';

/** Each function's bundle: its size and cold import beside an empty Node process, with their goals. */
export function printBundles(table: Table, goals: Table, bundles: readonly BundleReport[]) {
  table.section(
    'Lambda bundles (bench/bundles.ts): entry + lazy KB, cold import ms vs an empty Node process',
  );
  for (const b of bundles) {
    table.row(
      `${b.fn}: entry / lazy KB, rss MB`,
      `${fmt(b.entryBytes / 1024)} / ${fmt(b.lazyBytes / 1024)}, ${fmt(b.rssMb)}`,
      '',
      '500 KB',
      fmt(b.entryBytes / 1024 / 500, 2),
      '',
    );
    table.row(
      `${b.fn}: cold import ms`,
      fmt(b.importMs),
      '',
      `${fmt(2 * b.emptyMs)} (2 × empty node ${fmt(b.emptyMs)})`,
      fmt(b.importMs / (2 * b.emptyMs), 2),
      '',
    );
    if (b.firstRequestMs !== undefined) {
      // No goal: the import and the first invocation together, what a cold start is on Lambda.
      table.row(
        `${b.fn}: import + first request ms (a session read, local table)`,
        fmt(b.firstRequestMs),
        '',
        '',
        '',
        '',
      );
    }
    goals.row(
      `bundle ${b.fn} < 500 KB minified`,
      `${fmt(b.entryBytes / 1024)} KB`,
      '500 KB',
      fmt(b.entryBytes / 1024 / 500, 2),
      verdict(b.entryBytes, 500 * 1024, '<'),
    );
    goals.row(
      `bundle ${b.fn} cold import < 2 × empty node`,
      `${fmt(b.importMs)} ms`,
      `${fmt(2 * b.emptyMs)} ms`,
      fmt(b.importMs / (2 * b.emptyMs), 2),
      verdict(b.importMs, 2 * b.emptyMs, '<'),
    );
  }
}
