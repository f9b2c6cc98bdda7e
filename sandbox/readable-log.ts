import { sep } from 'node:path';
import { inspect } from 'node:util';
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions } from '@aws-lambda-powertools/logger/types';
import { hostSessionId } from '../lib/auth/index.ts';
import { OWN_DIRS } from './own-code.ts';

/** Where a {@link ReadableLogger} writes, and whether in colour. */
export interface ReadableOutput {
  /** Called with each entry: one or a few lines, ending with a newline. Default: standard error. */
  write: (text: string) => void;
  /** ANSI colours. Default: when standard error is a terminal and NO_COLOR is not set. */
  color: boolean;
}

/** The keys every line has, or that only matter on Lambda: not worth a reader's attention here. */
const QUIET_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'tenant_id',
  'correlation_id',
  // The ids every line of a request or a turn carries (lib/telemetry): the JSON logs keep them for
  // searching; a person reading the terminal follows agent, session and run.
  'requestId',
  'connectionId',
]);

/** The keys that say whose work a line is about, in the order they are printed. */
const WHO: [key: string, label: string][] = [
  ['agentId', 'agent'],
  ['sessionId', 'session'],
  ['runId', 'run'],
];

/** At most this many stack frames are printed for an error. */
const MAX_FRAMES = 5;

const COLORS = { ERROR: 31, CRITICAL: 31, WARN: 33, INFO: 36, DEBUG: 90, TRACE: 90, dim: 2 } as const;
type Paint = (text: string, style: keyof typeof COLORS) => string;

/** A stack frame's file, as a path: the module URL's `file://` and its query (a reload's version) removed. */
function cleanFrame(frame: string): string {
  return frame.replace(/file:\/\/([^?):\s]+)(\?[^):\s]*)?/g, (_, path: string) => decodeURI(path));
}

/** The frame's file is the agent's: not the runtime's own, a dependency's, or Node's. */
function isAgentFrame(frame: string): boolean {
  if (frame.includes(`${sep}node_modules${sep}`) || frame.includes('(node:') || frame.includes(' node:'))
    return false;
  if (!/[/\\]/.test(frame)) return false;
  return !OWN_DIRS.some((dir) => frame.includes(dir));
}

/**
 * The frames worth a reader's time: the agent's own files when the error passed through them,
 * else the first few (an error of the runtime itself), or none with `agentsOnly`.
 */
export function framesOf(stack: string | undefined, agentsOnly = false): string[] {
  const frames = (stack ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .map(cleanFrame);
  const agents = frames.filter(isAgentFrame);
  return (agents.length > 0 || agentsOnly ? agents : frames).slice(0, MAX_FRAMES);
}

/** A value as it reads in `key=value`: strings bare, the rest as compact JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return inspect(value, { depth: 3, breakLength: Number.POSITIVE_INFINITY });
  }
}

/** The error's lines: its name and message, then its frames (none for an error that lists issues). */
function errorLines(error: unknown, frames: 'all' | 'agents' | 'none', paint: Paint): string[] {
  if (!(error instanceof Error)) return error === undefined ? [] : [`  ${show(error)}`];
  const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
  // A message of several lines (a transform error's) stays indented under its entry.
  const lines = `${name}${error.message}`.split('\n').map((line) => `  ${line}`);
  if (frames !== 'none')
    lines.push(...framesOf(error.stack, frames === 'agents').map((frame) => paint(`    ${frame}`, 'dim')));
  if (error.cause !== undefined)
    lines.push(...errorLines(error.cause, frames, paint).map((line) => `  ${line}`));
  return lines;
}

/**
 * An error as {@link formatLogEntry} prints it, for an error that is not a log entry (an agents
 * module that does not load): its message, and the frames of the agent's own files if any.
 */
export function formatError(error: unknown): string {
  return errorLines(error, 'agents', (text) => text).join('\n');
}

/** The issues of a validation (`{ path, message }[]`), one a line. */
function issueLines(issues: unknown): string[] {
  if (!Array.isArray(issues)) return [];
  return issues.map((issue: { path?: unknown; message?: unknown }) => {
    const path = Array.isArray(issue?.path) ? issue.path.join('.') : String(issue?.path ?? '');
    return `  - ${path ? `${path}: ` : ''}${String(issue?.message ?? show(issue))}`;
  });
}

/**
 * One log entry (a Powertools log item's attributes) as a person reads it: time, level, whose
 * work (agent, session, run), the message and the other keys on the first line; then the error's
 * message, the agent's stack frames and the issues of a validation, indented.
 */
export function formatLogEntry(attributes: Record<string, unknown>, color = false): string {
  const paint: Paint = (text, style) => (color ? `\u001b[${COLORS[style]}m${text}\u001b[0m` : text);
  const level = String(attributes.level ?? 'INFO').toUpperCase();
  const time = typeof attributes.timestamp === 'string' ? attributes.timestamp.slice(11, 19) : '';
  // A session is stored under its owner's scope; the host knows it by its own id.
  const who = WHO.filter(([key]) => typeof attributes[key] === 'string').map(
    ([key, label]) =>
      `${label} ${key === 'sessionId' ? hostSessionId(attributes[key] as string) : (attributes[key] as string)}`,
  );
  const rest = Object.entries(attributes)
    .filter(([key, value]) => value !== undefined && key !== 'error' && key !== 'issues')
    .filter(([key]) => !QUIET_KEYS.has(key) && !WHO.some(([k]) => k === key))
    .map(([key, value]) => `${key}=${show(value)}`);
  const issues = issueLines(attributes.issues);
  const head = [
    paint(time, 'dim'),
    paint(level.padEnd(5), level in COLORS ? (level as keyof typeof COLORS) : 'INFO'),
    `${who.length > 0 ? `${who.join(' · ')}: ` : ''}${String(attributes.message ?? '')}`,
    rest.length > 0 ? paint(`(${rest.join(', ')})`, 'dim') : '',
  ]
    .filter(Boolean)
    .join(' ');
  // An error that lists issues is a validation: its stack is the runtime's, its issues say it all.
  const error = errorLines(attributes.error, issues.length > 0 ? 'none' : 'all', paint);
  return `${[head, ...error, ...issues].join('\n')}\n`;
}

/** Standard error, in colour when it is a terminal and NO_COLOR is not set. */
export function standardError(): ReadableOutput {
  return {
    write: (text) => process.stderr.write(text),
    color: Boolean(process.stderr.isTTY) && process.env.NO_COLOR === undefined,
  };
}

/**
 * Powertools' Logger (levels, child loggers, keys, sampling all unchanged) printing
 * {@link formatLogEntry}'s lines instead of JSON: the subclassing its documentation describes.
 *
 * @example
 * ```ts
 * const logger = new ReadableLogger({ serviceName: 'switchboard', logLevel: 'WARN' });
 * logger.error('The agent failed', { agentId: 'support', error });
 * ```
 */
export class ReadableLogger extends Logger {
  // Set after super(): a line printed while Powertools builds the logger goes to standard error.
  private output?: ReadableOutput;

  constructor(options: ConstructorOptions = {}, output: ReadableOutput = standardError()) {
    super(options);
    this.output = output;
  }

  protected override createLogger(options?: ConstructorOptions): Logger {
    return new ReadableLogger(options, this.output);
  }

  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    const output = this.output ?? standardError();
    output.write(formatLogEntry(log.getAttributes(), output.color));
  }
}
