import { describe, expect, it } from 'vitest';
import { MAX_BODY_UPLOAD, PROTOCOL, TOKEN_PROTOCOL } from '../../client/client.ts';
import { CLIENT_ERROR_CODES, SwitchboardApiError } from '../../client/errors.ts';
import { SWITCHBOARD_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from '../../lib/auth/index.ts';
import { ERROR_CODES } from '../../lib/errors/index.ts';
import { DIRECT_UPLOAD_MAX_BYTES } from '../../lib/files/limits.ts';

// The client imports nothing of the server at run time (its browser bundle must not), so the few
// values both sides must agree on are written twice: this keeps them equal.
describe('the client and the server agree', () => {
  it('on the WebSocket subprotocols and the largest upload sent as the request body', () => {
    expect([PROTOCOL, TOKEN_PROTOCOL]).toEqual([SWITCHBOARD_PROTOCOL, TOKEN_PROTOCOL_PREFIX]);
    expect(MAX_BODY_UPLOAD).toBe(DIRECT_UPLOAD_MAX_BYTES);
  });

  it('on the error codes: the server’s table, and the client’s own codes apart from it', () => {
    for (const code of CLIENT_ERROR_CODES) expect(Object.hasOwn(ERROR_CODES, code), code).toBe(false);
    expect(new SwitchboardApiError(409, 'session_busy', '').code).toBe('session_busy');
    expect(new SwitchboardApiError(502, 'gateway_error', '').code).toBe('gateway_error');
    // Checked by the compiler: a code neither side has fails to compile.
    // @ts-expect-error: no such code, on the server or in the client.
    const unknown = () => new SwitchboardApiError(400, 'no_such_code', '');
    expect(unknown).toBeTypeOf('function');
  });
});
