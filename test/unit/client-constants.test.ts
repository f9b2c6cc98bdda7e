import { describe, expect, it } from 'vitest';
import { MAX_BODY_UPLOAD, PROTOCOL, TOKEN_PROTOCOL } from '../../client/client.ts';
import { SWITCHBOARD_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from '../../lib/auth/index.ts';
import { DIRECT_UPLOAD_MAX_BYTES } from '../../lib/files/limits.ts';

// The client imports nothing of the server at run time (its browser bundle must not), so the few
// values both sides must agree on are written twice: this keeps them equal.
describe('the client and the server agree', () => {
  it('on the WebSocket subprotocols and the largest upload sent as the request body', () => {
    expect([PROTOCOL, TOKEN_PROTOCOL]).toEqual([SWITCHBOARD_PROTOCOL, TOKEN_PROTOCOL_PREFIX]);
    expect(MAX_BODY_UPLOAD).toBe(DIRECT_UPLOAD_MAX_BYTES);
  });
});
