import { describe, expect, it } from 'vitest';
import { createAguiHandler } from '../../lib/agui/index.ts';
import {
  createHttpHandler,
  createSweepHandler,
  createWebSocketHandler,
  createWorkerHandler,
} from '../../lib/handlers/index.ts';
import { callerOf, type Middleware, pipeline } from '../../lib/handlers/middleware/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { createLambdaContext } from '../../sandbox/lambda-context.ts';

/**
 * Every handler is a pipeline of named middlewares; these are their orders. The doors a caller comes
 * in by (HTTP, WebSocket, AG-UI) publish their metrics and map their errors around everything else,
 * find the route (404) before asking who the caller is, and count the request against the caller's
 * limits before the handler reads or writes anything. A door that leaves out `identify` or
 * `rateLimit`, or moves them, fails here.
 */
const app = createSwitchboard();
const DOOR_TAIL = ['identify', 'rateLimit'];

describe('the handlers’ pipelines', () => {
  it('run every door through telemetry, errors, schemas, identify and rateLimit, in that order', () => {
    expect(createHttpHandler(app).pipeline).toEqual([
      'telemetry',
      'errors',
      'schemas',
      'route',
      ...DOOR_TAIL,
    ]);
    expect(createWebSocketHandler(app).pipeline).toEqual(['telemetry', 'errors', 'schemas', ...DOOR_TAIL]);
    expect(createAguiHandler(app).pipeline).toEqual([
      'telemetry',
      'errors',
      'schemas',
      'route',
      ...DOOR_TAIL,
    ]);
  });

  it('give the worker and the sweep, which serve no caller, telemetry and schemas only', () => {
    expect(createWorkerHandler(app).pipeline).toEqual(['telemetry', 'schemas']);
    expect(createSweepHandler(app).pipeline).toEqual(['telemetry', 'schemas']);
  });
});

describe('a pipeline’s invocation context', () => {
  // A stand-in for `identify`: the caller the event names, on the invocation's context.
  const named: Middleware<{ user?: string }> = {
    name: 'identify',
    before(request) {
      if (request.event.user) request.context.caller = { user: request.event.user, data: {} };
    },
  };
  const whoami = pipeline([named], async (_event, context) => callerOf(context).user);

  it('hands the handler the caller its steps found', async () => {
    await expect(
      whoami({ user: 'ada' }, createLambdaContext({ functionName: 'http', timeoutMs: 30_000 })),
    ).resolves.toBe('ada');
  });

  it('is the invocation’s own: a caller found once is not read by the next call on the same Lambda context', async () => {
    const shared = createLambdaContext({ functionName: 'http', timeoutMs: 30_000 });
    await expect(whoami({ user: 'ada' }, shared)).resolves.toBe('ada');
    await expect(whoami({}, shared)).rejects.toThrow(/no identify step/);
  });
});
