import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/errors/index.ts';
import { sourceFiles } from '../support/source-graph.ts';

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url));

/**
 * Where lib/ writes a code into an answer without an error class: a `code:` field (a run's error, a
 * turn's outcome, an AG-UI `RUN_ERROR`) and a stream's interruption. The codes error classes are
 * made with are checked by the compiler (test/unit/error-codes.test.ts).
 */
const WRITES = [/\bcode: '([a-z_]+)'/g, /\b(?:interrupted|runError)\(\s*'([a-z_]+)'/g];

/** Code literals that are not answers, and why. */
const NOT_ANSWERS: Record<string, string> = {
  // zod's issue code for a refinement: it names the kind of issue, inside `validation_error`.
  custom: 'a zod issue code',
  // A worker that lost its lease reports it to itself and writes nothing: the new owner closes the
  // run with `worker_lost`.
  lease_lost: 'never written: the run is closed by its new owner',
  // The codes of an `agent.warning` (WarningCodeSchema): a turn that goes on, not an error answer.
  mcp_server_unavailable: 'a warning code',
  mcp_tool_left_out: 'a warning code',
};

describe('the codes an answer can carry', () => {
  it('are all in ERROR_CODES: lib/ writes no code literal the error table does not document', () => {
    const outside: string[] = [];
    for (const { path, text } of sourceFiles(LIB))
      for (const pattern of WRITES)
        for (const [, code = ''] of text.matchAll(pattern))
          if (!Object.hasOwn(ERROR_CODES, code) && !Object.hasOwn(NOT_ANSWERS, code))
            outside.push(`${path}: ${code}`);
    expect(outside).toEqual([]);
  });

  it('find the writes they look for, so the scan above is not vacuous', () => {
    const found = new Set(
      sourceFiles(LIB).flatMap(({ text }) => WRITES.flatMap((p) => [...text.matchAll(p)].map((m) => m[1]))),
    );
    for (const code of ['session_deleted', 'stream_timeout', 'stream_failed', 'job_lost'])
      expect(found, code).toContain(code);
  });
});
