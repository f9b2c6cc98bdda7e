import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The names a sandbox port answers to whatever it was told: the loopback name and addresses. A
 * request naming anything else in its `Host` came through a name that resolves here by accident or
 * by design (DNS rebinding: a page on attacker.example re-resolved to 127.0.0.1), and is refused.
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A host name as a `Host` header carries it: lower case, an IPv6 address in brackets, no port. */
function hostName(value: string): string {
  const name = value.trim().toLowerCase().replace(/\.$/, '');
  return name.includes(':') && !name.startsWith('[') ? `[${name}]` : name;
}

/** The name of a `Host` header (`localhost:3000`, `[::1]:3000`, `example`); undefined when it is malformed. */
function nameOfHost(header: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]\s]+)(?::\d{1,5})?$/i.exec(header.trim());
  return match?.[1] && hostName(match[1]);
}

/**
 * Who a sandbox port answers: requests whose `Host` names a loopback name or address (any port), or
 * one of `names` (the address the sandbox listens on, the names `--allow-host` allows).
 */
export class HostCheck {
  private readonly names: Set<string>;

  constructor(names: Iterable<string> = []) {
    this.names = new Set([...LOOPBACK, ...[...names].map(hostName)]);
  }

  /** True when the request's `Host` is one this port answers to; a request without one is refused. */
  host(req: IncomingMessage): boolean {
    const header = req.headers.host;
    const name = header === undefined ? undefined : nameOfHost(header);
    return name !== undefined && this.names.has(name);
  }

  /**
   * True when the request carries no `Origin` (not a browser's cross-origin request) or one on a
   * name this port answers to, on any port and scheme (a dev server on another port still works).
   */
  origin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    try {
      const url = new URL(origin);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') && this.names.has(hostName(url.hostname))
      );
    } catch {
      return false;
    }
  }
}

/** A check of loopback names alone: for the emulators' ports, which only this machine's SDK clients call. */
const LOOPBACK_ONLY = new HostCheck();

/** The body of a refusal of a foreign `Host` or `Origin`. */
export const FOREIGN_HOST_MESSAGE =
  'Forbidden: the sandbox answers only to localhost and the names it is given (--host, --allow-host).';

/**
 * Puts a check of `Host` before every request listener `server` has now: an emulator's port
 * (DynamoDB, SQS and S3, the event bus, Secrets Manager, the fronts before them, the scripted model)
 * answers 403 to a request naming a host other than a loopback one or one of `names`, as a
 * DNS-rebinding page's does. The SDK clients the sandbox's functions use name `127.0.0.1:PORT`,
 * their endpoint. Returns the server.
 */
export function loopbackOnly<T extends Server>(server: T, names: Iterable<string> = []): T {
  const check = [...names].length > 0 ? new HostCheck(names) : LOOPBACK_ONLY;
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (check.host(req)) {
      for (const listener of listeners) listener.call(server, req, res);
      return;
    }
    req.resume();
    res
      .writeHead(403, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
      .end(FOREIGN_HOST_MESSAGE);
  });
  return server;
}
