import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorRows, withErrorTable } from '../../lib/documents/error-table.ts';
import { ERROR_CODES, type ErrorCode } from '../../lib/errors/index.ts';

const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);

const protocol = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');

describe('the error codes in docs/protocol.md', () => {
  it('are the table lib/errors/codes.ts makes (run `npm run contract` after a change)', () => {
    expect(protocol, 'docs/protocol.md states other error codes: run npm run contract').toBe(
      withErrorTable(protocol),
    );
  });

  it('list every code once, by status', () => {
    const rows = errorRows();
    expect(rows.map((r) => r[1])).toEqual(
      expect.arrayContaining(Object.keys(ERROR_CODES).map((code) => `\`${code}\``)),
    );
    expect(rows).toHaveLength(Object.keys(ERROR_CODES).length);
    const statuses = rows.map((r) => Number(r[0]));
    expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
  });

  it('name, in every other table of the document, only codes of the map with their status', () => {
    const named = [...protocol.matchAll(/^\| (\d{3}) +\| `(\w+)` +\|/gm)];
    expect(named.length).toBeGreaterThan(Object.keys(ERROR_CODES).length);
    for (const [, status, code = ''] of named) {
      expect(isErrorCode(code), `${code} is not in lib/errors/codes.ts`).toBe(true);
      if (isErrorCode(code)) expect(ERROR_CODES[code][0], code).toBe(Number(status));
    }
  });
});
