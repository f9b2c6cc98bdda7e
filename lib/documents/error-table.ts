import { ERROR_CODES, type ErrorCode } from '../errors/index.ts';
import { ERROR_DESCRIPTIONS } from './errors.ts';

/** Where docs/protocol.md holds the generated error table, so that `npm run contract` can rewrite it. */
export const ERRORS_START = '<!-- errors:start (written by npm run contract from lib/errors/codes.ts) -->';
export const ERRORS_END = '<!-- errors:end -->';

/** Every code as a row: status, code, WebSocket type, when; by status, in the map's order within one. */
export function errorRows(): [string, string, string, string][] {
  return (Object.keys(ERROR_CODES) as ErrorCode[])
    .map((code, order) => ({ code, order, status: ERROR_CODES[code][0], type: ERROR_CODES[code][1] }))
    .sort((a, b) => a.status - b.status || a.order - b.order)
    .map(({ code, status, type }) => [
      String(status),
      `\`${code}\``,
      `\`${type}\``,
      ERROR_DESCRIPTIONS[code],
    ]);
}

/** The error codes as a Markdown table, its columns aligned. */
export function errorTable(): string {
  const all: string[][] = [['status', 'code', 'WebSocket type', 'when'], ...errorRows()];
  const width = [0, 1, 2, 3].map((i) => Math.max(...all.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]) => `| ${r.map((cell, i) => cell.padEnd(width[i] ?? 0)).join(' | ')} |`;
  const rule = `| ${width.map((w) => '-'.repeat(w)).join(' | ')} |`;
  return all.map((r, i) => (i === 0 ? `${line(r)}\n${rule}` : line(r))).join('\n');
}

/** `markdown` with the text between the error markers replaced by the current table. */
export function withErrorTable(markdown: string): string {
  const start = markdown.indexOf(ERRORS_START);
  const end = markdown.indexOf(ERRORS_END);
  if (start < 0 || end < start) throw new Error('The error table markers are missing or out of order.');
  return `${markdown.slice(0, start + ERRORS_START.length)}\n\n${errorTable()}\n\n${markdown.slice(end)}`;
}
