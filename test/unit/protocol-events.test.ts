import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SESSION_EVENTS } from '../../lib/events/log.ts';

const protocol = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');

describe('the event table of docs/protocol.md', () => {
  it('has a row for every event type the log holds, and none it does not', () => {
    const start = protocol.indexOf('| type ');
    const table = protocol.slice(start, protocol.indexOf('\n\n', start));
    const rows = [...table.matchAll(/^\| `([a-z_.]+)`\s+\|/gm)].map(([, type]) => type);
    expect(rows.sort()).toEqual(Object.keys(SESSION_EVENTS).sort());
  });
});
