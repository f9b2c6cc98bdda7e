import { ACTION_TRANSITIONS } from './action-machine.ts';
import { RUN_TRANSITIONS } from './run-machine.ts';
import type { Transition } from './types.ts';

/*
 * The tables of docs/runs.md's "States and transitions", written from the transitions themselves
 * by `npm run contract`; test/unit/transitions.test.ts fails while the page says something else.
 * Only the tests and that script import this module: no function carries it.
 */

export const TRANSITIONS_START =
  '<!-- transitions:start (written by npm run contract from lib/store/*-machine.ts) -->';
export const TRANSITIONS_END = '<!-- transitions:end -->';

const code = (names: readonly string[] | undefined) =>
  names?.length ? names.map((n) => `\`${n}\``).join(', ') : '';
/** A condition as it reads without the placeholders' marks: `leaseOwner = :leaseOwner`. */
const condition = (text: string | undefined) => (text ? `\`${text.replaceAll('#', '')}\`` : '');

function table(title: string, transitions: Record<string, Transition>): string {
  const rows = Object.entries(transitions).map(([name, t]) => [
    `\`${name}\``,
    code(t.from),
    t.to ? code(t.to) : '(stays)',
    code(t.set),
    code(t.remove),
    condition(t.guard),
    t.again
      ? `${t.to ? 'the status it enters' : 'a status it leaves'} and ${code(t.again)} as it writes them`
      : '',
  ]);
  const header = [title, 'from', 'to', 'sets', 'removes', 'and only if', 'a retry finds it applied by'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The tables of every transition of a run and of a request. */
export function transitionTables(): string {
  return `${table('run', RUN_TRANSITIONS)}\n\n${table('request', ACTION_TRANSITIONS)}`;
}

/** `markdown` with the tables between its transitions markers written anew. */
export function withTransitions(markdown: string): string {
  const start = markdown.indexOf(TRANSITIONS_START);
  const end = markdown.indexOf(TRANSITIONS_END);
  if (start < 0 || end < start) throw new Error('The transitions markers are missing or out of order.');
  return `${markdown.slice(0, start + TRANSITIONS_START.length)}\n\n${transitionTables()}\n\n${markdown.slice(end)}`;
}
