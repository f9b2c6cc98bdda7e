import { AsyncLocalStorage } from 'node:async_hooks';
import { LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

/**
 * The ids every log line of a request or a turn carries, as far as they are known: the Lambda
 * invocation's (`function_request_id`, Powertools' own name for it), the session's, the run's, the
 * host's request id and the agent's.
 */
export interface LogKeys {
  function_request_id?: string;
  sessionId?: string;
  runId?: string;
  requestId?: string;
  agentId?: string;
  connectionId?: string;
}

/**
 * The keys of the request or turn in progress. An AsyncLocalStorage rather than the logger's
 * `appendKeys`: one worker invocation runs several sessions' turns side by side, and the sandbox runs
 * many invocations in one process, so keys appended to the shared logger would land on the wrong lines.
 */
const current = new AsyncLocalStorage<LogKeys>();

/** Runs `fn` with `keys` added to every log line it writes, on top of the keys already in force. */
export function withLogKeys<T>(keys: LogKeys, fn: () => T): T {
  return current.run({ ...current.getStore(), ...withoutUndefined(keys) }, fn);
}

/**
 * Starts the log scope of one invocation, for the rest of it: its keys alone, nothing of a scope the
 * caller was in (a middleware cannot wrap the handler in {@link withLogKeys}, so it enters the scope).
 */
export function enterLogKeys(keys: LogKeys): void {
  current.enterWith(withoutUndefined(keys));
}

/** Adds keys, learnt along the way (the session a message goes to, its agent), to the current request's lines. */
export function addLogKeys(keys: LogKeys): void {
  const store = current.getStore();
  if (store) Object.assign(store, withoutUndefined(keys));
}

/** The keys in force here (empty outside a request or a turn). */
export function logKeys(): LogKeys {
  return { ...current.getStore() };
}

function withoutUndefined(keys: LogKeys): LogKeys {
  return Object.fromEntries(Object.entries(keys).filter(([, value]) => value !== undefined));
}

/**
 * Powertools' standard JSON layout, with the current {@link LogKeys} on every line. A line's own
 * attributes come last and win, as with Powertools' persistent keys.
 */
export class ContextLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const base = {
      level: attributes.logLevel,
      message: attributes.message,
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: attributes.lambdaContext?.coldStart,
      function_name: attributes.lambdaContext?.functionName,
      function_request_id: attributes.lambdaContext?.awsRequestId,
      sampling_rate: attributes.sampleRateValue,
      xray_trace_id: attributes.xRayTraceId,
    };
    return new LogItem({ attributes: base })
      .addAttributes({ ...current.getStore() })
      .addAttributes(additional);
  }
}
