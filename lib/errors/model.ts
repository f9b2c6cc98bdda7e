import { SwitchboardError } from './errors.ts';

/**
 * A model agent's endpoint failed (an error status after the client's own retries, a broken
 * stream, no connection): the turn fails with `model_error`, 502, its message the endpoint's status
 * and message. Nothing of the request is in it (never the key); under `maskServerErrors` callers
 * see the generic message and only the log has it.
 */
export class ModelEndpointError extends SwitchboardError<'model_error'> {
  constructor(
    message: string,
    /** The endpoint's HTTP status, when it answered one. */
    readonly endpointStatus?: number,
  ) {
    super('model_error', message, 502, 'internal');
  }
}
