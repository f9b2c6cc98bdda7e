import { type HostEvent, HostEventSchema, type HostResult, HostResultSchema } from '../contract/index.ts';
import { InvalidHostResultError, issuesOf } from '../errors/index.ts';

/** Where the gate reports a malformed event: once per turn. */
export type WarnFn = (message: string, detail: Record<string, unknown>) => void;

/**
 * Guards one turn's `emit`: a malformed event is ignored with one warning per turn, and once
 * the turn has ended every event is dropped.
 */
export class EventGate {
  #closed = false;
  #warned = false;

  constructor(private readonly warn: WarnFn) {}

  /** The event, validated, or undefined when it must be ignored. */
  accept(event: unknown): HostEvent | undefined {
    if (this.#closed) return undefined;
    const parsed = HostEventSchema.safeParse(event);
    if (parsed.success) return parsed.data;
    if (!this.#warned) {
      this.#warned = true;
      this.warn(
        'Ignored a malformed event from the agent (further ones in this turn are ignored silently).',
        {
          issues: issuesOf(parsed.error),
        },
      );
    }
    return undefined;
  }

  /** Ends the turn: later events are dropped. */
  close(): void {
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }
}

/**
 * Checks what `invoke` or `resolveAction` returned. `undefined` counts as `{}` (everything was
 * streamed); anything the runtime cannot use is an {@link InvalidHostResultError}.
 */
export function validateResult(value: unknown): HostResult {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidHostResultError('The agent returned something that is not an object.');
  }
  const parsed = HostResultSchema.safeParse(value);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error);
    const first = issues[0];
    throw new InvalidHostResultError(
      `The agent returned an unusable result${first ? ` at ${first.path.join('.') || '(root)'}: ${first.message}` : ''}.`,
      issues,
    );
  }
  return parsed.data;
}
