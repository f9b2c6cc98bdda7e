import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_API_CORS } from '../../lib/contract/index.ts';
import { type Gateway, startGateway } from '../../sandbox/gateway/index.ts';

const ORIGIN = 'https://app.example.com';

describe('gateway CORS, by the configuration the stack deploys', () => {
  let gateway: Gateway;
  let calls = 0;

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      http: {
        routes: ['POST /api/chat', 'GET /api/sessions/{id}'],
        cors: HTTP_API_CORS,
        handler: async () => {
          calls += 1;
          // API Gateway ignores the integration's own CORS headers once CORS is configured.
          return {
            statusCode: 200,
            headers: { 'access-control-allow-origin': 'https://elsewhere.example' },
            body: '{}',
          };
        },
      },
    });
  });
  afterAll(() => gateway.close());

  const preflight = (path: string, method: string, headers?: string) =>
    fetch(`${gateway.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': method,
        ...(headers && { 'access-control-request-headers': headers }),
      },
    });

  it('answers a preflight from a browser origin itself, with the allowed methods and headers', async () => {
    const before = calls;
    const res = await preflight('/api/chat', 'POST', 'content-type,authorization');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')?.split(',')).toEqual(
      expect.arrayContaining(['GET', 'POST', 'DELETE']),
    );
    expect(res.headers.get('access-control-allow-headers')?.split(',')).toEqual(
      expect.arrayContaining(['content-type', 'authorization']),
    );
    expect(calls).toBe(before);
  });

  it('allows neither a method nor a header outside the configuration', async () => {
    for (const res of [
      await preflight('/api/sessions/s1', 'PUT'),
      await preflight('/api/chat', 'POST', 'content-type,x-custom'),
    ]) {
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
    }
  });

  it('adds access-control-allow-origin to a response for a request with an Origin, replacing the function’s', async () => {
    const res = await fetch(`${gateway.url}/api/sessions/s1`, { headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('routes an OPTIONS request that is no preflight like any other (404 without an OPTIONS route)', async () => {
    const res = await fetch(`${gateway.url}/api/chat`, { method: 'OPTIONS' });
    expect(res.status).toBe(404);
  });
});
