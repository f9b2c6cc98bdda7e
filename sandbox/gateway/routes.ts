type Segment =
  | { kind: 'literal'; value: string }
  | { kind: 'param'; name: string }
  | { kind: 'greedy'; name: string };

/** A parsed HTTP API route key. */
export interface Route {
  key: string;
  /** Upper case, or 'ANY'; `$default` has method 'ANY' and a lone greedy segment. */
  method: string;
  segments: Segment[];
}

/** The route a request landed on, with its path parameters (absent when the route has none). */
export interface RouteMatch {
  route: Route;
  pathParameters?: Record<string, string>;
}

const METHODS = new Set(['ANY', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const RANK = { literal: 2, param: 1, greedy: 0 } as const;

/** Parses `'GET /api/sessions/{id}'`, `'ANY /{proxy+}'` or `'$default'`; throws on anything API Gateway refuses. */
export function parseRoute(key: string): Route {
  if (key === '$default') return { key, method: 'ANY', segments: [{ kind: 'greedy', name: '' }] };
  const match = /^([A-Z]+) (\/\S*)$/.exec(key);
  if (!match?.[1] || !match[2] || !METHODS.has(match[1])) throw new Error(`Invalid route key: ${key}`);
  const parts = match[2] === '/' ? [] : match[2].slice(1).split('/');
  const segments = parts.map((part, i): Segment => {
    const param = /^\{([A-Za-z0-9_.-]+)(\+?)\}$/.exec(part);
    if (!param?.[1]) {
      if (part === '' || /[{}]/.test(part)) throw new Error(`Invalid route key: ${key}`);
      return { kind: 'literal', value: part };
    }
    if (!param[2]) return { kind: 'param', name: param[1] };
    if (i !== parts.length - 1) throw new Error(`A greedy path variable must come last: ${key}`);
    return { kind: 'greedy', name: param[1] };
  });
  return { key, method: match[1], segments };
}

function matchSegments(route: Route, parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (const [i, segment] of route.segments.entries()) {
    if (segment.kind === 'greedy') {
      const rest = parts.slice(i);
      if (segment.name === '') return params;
      if (rest.length === 0 || rest.join('') === '') return null;
      params[segment.name] = rest.map(decode).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined || part === '') return null;
    if (segment.kind === 'literal' && decode(part) !== segment.value) return null;
    if (segment.kind === 'param') params[segment.name] = decode(part);
  }
  return parts.length === route.segments.length ? params : null;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** API Gateway prefers literal segments over variables, variables over greedy ones, then a named method over ANY. */
function moreSpecific(a: Route, b: Route): number {
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const ra = a.segments[i] ? RANK[a.segments[i]!.kind] : -1;
    const rb = b.segments[i] ? RANK[b.segments[i]!.kind] : -1;
    if (ra !== rb) return rb - ra;
  }
  if (a.key === '$default' || b.key === '$default') return a.key === '$default' ? 1 : -1;
  return (a.method === 'ANY' ? 1 : 0) - (b.method === 'ANY' ? 1 : 0);
}

/** Builds a matcher over the given route keys; validates them all up front. */
export function createRouter(keys: string[]): (method: string, rawPath: string) => RouteMatch | null {
  const routes = keys.map(parseRoute).sort(moreSpecific);
  return (method, rawPath) => {
    const parts = rawPath === '/' ? [] : rawPath.replace(/^\//, '').split('/');
    for (const route of routes) {
      if (route.method !== 'ANY' && route.method !== method) continue;
      const params = matchSegments(route, parts);
      if (!params) continue;
      return Object.keys(params).length > 0 ? { route, pathParameters: params } : { route };
    }
    return null;
  };
}
