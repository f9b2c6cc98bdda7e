import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { entrySize, PUT_EVENTS_LIMITS } from '../lib/events/index.ts';
import { readAll } from './aws/forward.ts';
import { answerJson, startJsonService } from './json-service.ts';

/** One event the bus took, as a rule's target would receive it. */
export interface ReceivedEvent {
  id: string;
  /** ISO 8601, as EventBridge's `time`. */
  time: string;
  source: string;
  detailType: string;
  detail: unknown;
  bus: string;
  resources: string[];
}

/** A running bus. */
export interface EventBusEmulator {
  url: string;
  /** Every event taken so far, oldest first. */
  events(): ReceivedEvent[];
  close(): Promise<void>;
}

interface Entry {
  EventBusName?: unknown;
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  Resources?: unknown;
  Time?: unknown;
}

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

const invalid = (name: string, reason: string): EntryResult => ({
  ErrorCode: 'InvalidArgument',
  ErrorMessage: `Parameter ${name} is not valid. Reason: ${reason}`,
});

function isObjectJson(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Takes one entry as EventBridge does, or says why not: a source and a detail-type are required,
 * and the detail must be a JSON object; the bus must be this one.
 */
function take(entry: Entry, bus: string): ReceivedEvent | EntryResult {
  const name = typeof entry.EventBusName === 'string' ? entry.EventBusName : 'default';
  const busName = name.startsWith('arn:') ? name.slice(name.lastIndexOf('/') + 1) : name;
  if (busName !== bus)
    return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${name} does not exist.` };
  if (typeof entry.Source !== 'string' || entry.Source === '')
    return invalid('Source', 'Source is a required argument.');
  if (typeof entry.DetailType !== 'string' || entry.DetailType === '')
    return invalid('DetailType', 'DetailType is a required argument.');
  if (typeof entry.Detail !== 'string' || !isObjectJson(entry.Detail))
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  const time = typeof entry.Time === 'number' ? new Date(entry.Time * 1000) : new Date();
  return {
    id: randomUUID(),
    time: `${time.toISOString().slice(0, 19)}Z`,
    source: entry.Source,
    detailType: entry.DetailType,
    detail: JSON.parse(entry.Detail) as unknown,
    bus,
    resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : [],
  };
}

const answer = answerJson;

/**
 * A local EventBridge bus: `PutEvents` (JSON 1.1, `X-Amz-Target: AWSEvents.PutEvents`) with AWS's
 * limits (10 entries, 256 KB a call) and its per-entry refusals, keeping what it took so the sandbox
 * can show and a test can read it. `onEvent` is told of each event as it arrives. Other operations
 * are refused as unknown: the runtime publishes, nothing more.
 */
export async function startEventBus(options: {
  bus: string;
  onEvent?: (event: ReceivedEvent) => void;
}): Promise<EventBusEmulator> {
  const received: ReceivedEvent[] = [];
  const validation = (res: ServerResponse, message: string) =>
    answer(res, 400, { message }, 'ValidationException');

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target !== 'AWSEvents.PutEvents')
      return answer(res, 400, { message: `Unknown operation ${target}` }, 'UnknownOperationException');
    let input: { Entries?: unknown };
    try {
      input = JSON.parse(body.toString('utf8')) as { Entries?: unknown };
    } catch {
      return answer(res, 400, { message: 'Could not parse the request body.' }, 'SerializationException');
    }
    const entries = input.Entries;
    if (!Array.isArray(entries) || entries.length === 0)
      return validation(
        res,
        "1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length greater than or equal to 1",
      );
    if (entries.length > PUT_EVENTS_LIMITS.entries)
      return validation(
        res,
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${PUT_EVENTS_LIMITS.entries}`,
      );
    if ((entries as Entry[]).reduce((sum, e) => sum + entrySize(e), 0) > PUT_EVENTS_LIMITS.bytes)
      return validation(res, 'Total size of the entries in the request is over the limit.');
    const results = (entries as Entry[]).map((entry): EntryResult => {
      const taken = take(entry, options.bus);
      if (!('id' in taken)) return taken;
      received.push(taken);
      options.onEvent?.(taken);
      return { EventId: taken.id };
    });
    answer(res, 200, {
      FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length,
      Entries: results,
    });
  }

  const service = await startJsonService(serve, 'InternalException');
  return { ...service, events: () => [...received] };
}

/** One readable line for an event, as `switchboard dev` prints it: its type and the ids that matter. */
export function eventLine(event: ReceivedEvent): string {
  const detail = (event.detail ?? {}) as Record<string, unknown>;
  const ids = [
    'sessionId',
    'runId',
    'actionId',
    'kind',
    'status',
    'outcome',
    'scope',
    'answerPath',
    'expiresAt',
  ]
    .filter((key) => detail[key] !== undefined && detail[key] !== null)
    .map((key) => `${key}=${String(detail[key])}`);
  return `[event] ${event.detailType} ${ids.join(' ')}`;
}
