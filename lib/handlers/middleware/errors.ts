import type { Middleware } from './types.ts';

/**
 * `errors`, second: whatever a later step throws becomes the transport's error answer (`render`),
 * a stable code and no stack trace; a throw that `render` does not answer goes on to Lambda.
 */
export const errors = <E, R>(render: (error: unknown, event: E) => R): Middleware<E, R> => ({
  name: 'errors',
  onError(request) {
    request.response = render(request.error, request.event);
  },
});
