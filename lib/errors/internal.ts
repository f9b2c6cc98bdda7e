/**
 * Errors the worker raises and handles itself. None of them reaches a caller as a response, so
 * none is a {@link SwitchboardError}: they name a state of a run, not a problem with a request.
 */

/**
 * Thrown when a job cannot run yet (its run is held by a live lease): the queue retries it. The
 * worker hands the record back with a visibility of at least `retryAfterMs`.
 */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
  /** @param retryAfterMs how long until the job can run: the holder's lease ends then. */
  constructor(
    message: string,
    readonly retryAfterMs = 0,
  ) {
    super(message);
  }
}

/**
 * A claimed run whose run or session item is missing from the table: a fault on our side. The
 * worker closes the run as `error` (`internal_error`) rather than retrying it.
 */
export class MissingItemError extends Error {
  override name = 'MissingItemError';
}

/**
 * Raised inside a run's event stream when another writer holds the next seq: this worker is fenced
 * off, and the worker that took the run over closes it.
 */
export class FencedError extends Error {
  /** @param seq the seq this worker tried to write, which another writer took. */
  constructor(seq: number) {
    super(`Seq ${seq} of the session's log is taken: another worker owns this turn.`);
    this.name = 'FencedError';
  }
}

/**
 * An AWS service's refusal of a call, as the table client ({@link TableClient} in lib/aws/table)
 * raises it: the same shape as the AWS SDK's service exceptions, so code that tells errors apart by
 * `name` (`ConditionalCheckFailedException`, `ThrottlingException`), by `$fault` or by
 * `$metadata.httpStatusCode` reads both alike. The other fields of the service's answer are kept
 * (`Item` of a refused conditional write that asked for it, in DynamoDB JSON).
 */
export class AwsServiceError extends Error {
  /** `client` for a 4xx answer, `server` for a 5xx. */
  readonly $fault: 'client' | 'server';
  readonly $metadata: { httpStatusCode: number; requestId?: string; attempts: number };
  /** The answer's other fields. */
  [field: string]: unknown;
  constructor(
    name: string,
    message: string,
    metadata: { httpStatusCode: number; requestId?: string; attempts: number },
    fields: Record<string, unknown> = {},
  ) {
    super(message);
    Object.assign(this, fields);
    this.name = name;
    this.$fault = metadata.httpStatusCode >= 500 ? 'server' : 'client';
    this.$metadata = metadata;
  }
}
