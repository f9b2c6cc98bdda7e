import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { CorsConfig } from '../../lib/contract/index.ts';
import type { HttpResponse } from './http-response.ts';

/** What an HTTP API with a CORS configuration does besides routing. */
export interface CorsPolicy {
  /** The gateway's own answer to a preflight request, or undefined when the request is not one. */
  preflight(req: IncomingMessage): HttpResponse | undefined;
  /** A response with the integration's CORS headers replaced by the configuration's. */
  decorate(req: IncomingMessage, response: HttpResponse): HttpResponse;
}

const lower = (values: readonly string[]) => values.map((v) => v.toLowerCase());

/** Whether a CORS configuration allows `origin`: `*`, the origin itself, or its scheme's wildcard (`https://*`). */
export function originAllowed(config: CorsConfig, origin: string): boolean {
  const wanted = origin.toLowerCase();
  return lower(config.allowOrigins).some(
    (allowed) =>
      allowed === '*' ||
      allowed === wanted ||
      (allowed.endsWith('://*') && wanted.startsWith(allowed.slice(0, -1))),
  );
}

/** `*` only where the configuration allows any origin and no credentials; otherwise the caller's origin. */
function allowOriginValue(config: CorsConfig, origin: string): string {
  return config.allowOrigins.includes('*') && !config.allowCredentials ? '*' : origin;
}

/**
 * CORS as API Gateway HTTP API applies its `CorsConfiguration`. A preflight (OPTIONS with
 * `Origin` and `Access-Control-Request-Method`) that no route takes is answered 204 by the gateway:
 * with the allow headers when its origin, method and every requested header are allowed, without
 * any when not (the browser then refuses the actual request). Other responses to a request with an
 * allowed `Origin` get `Access-Control-Allow-Origin`; CORS headers the integration set are dropped,
 * as API Gateway ignores them once CORS is configured.
 */
export function corsPolicy(config: CorsConfig): CorsPolicy {
  const methods = new Set<string>(config.allowMethods);
  const headers = new Set(lower(config.allowHeaders));

  function allowed(req: IncomingMessage, origin: string, method: string): boolean {
    const requested = (req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    return (
      originAllowed(config, origin) &&
      (methods.has('*') || methods.has(method.toUpperCase())) &&
      (headers.has('*') || requested.every((h) => headers.has(h)))
    );
  }

  return {
    preflight(req) {
      const origin = req.headers.origin;
      const method = req.headers['access-control-request-method'];
      if (req.method !== 'OPTIONS' || !origin || !method) return undefined;
      const out: OutgoingHttpHeaders = {};
      if (allowed(req, origin, method)) {
        out['access-control-allow-origin'] = allowOriginValue(config, origin);
        out['access-control-allow-methods'] = config.allowMethods.join(',');
        out['access-control-allow-headers'] = config.allowHeaders.join(',');
        if (config.maxAgeSeconds !== undefined) out['access-control-max-age'] = String(config.maxAgeSeconds);
        if (config.allowCredentials) out['access-control-allow-credentials'] = 'true';
      }
      return { statusCode: 204, headers: out, body: Buffer.alloc(0) };
    },
    decorate(req, response) {
      const out = Object.fromEntries(
        Object.entries(response.headers).filter(([name]) => !name.startsWith('access-control-')),
      );
      const origin = req.headers.origin;
      if (origin && originAllowed(config, origin)) {
        out['access-control-allow-origin'] = allowOriginValue(config, origin);
        if (config.exposeHeaders?.length)
          out['access-control-expose-headers'] = config.exposeHeaders.join(',');
        if (config.allowCredentials) out['access-control-allow-credentials'] = 'true';
      }
      return { ...response, headers: out };
    },
  };
}
