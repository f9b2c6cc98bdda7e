/** An answer with an error status, in OpenAI's shape: `{ error: { message, type, param, code } }`. */
export class EndpointError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get body() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A 400 about the request, as the real endpoints word it. */
export function invalidRequest(message: string, param: string | null = null, code: string | null = null) {
  return new EndpointError(400, message, 'invalid_request_error', code, param);
}

/** A mistake of the script (not of the client): a 400 whose message says what to fix. */
export function scriptError(message: string) {
  return new EndpointError(400, `Scripted model: ${message}`, 'invalid_request_error', 'script_error');
}
