import { WebSocket } from 'ws';
import type { ConnectionFacts } from './ws-events.ts';

/** One open WebSocket connection and what the management API reports about it. */
export interface Connection {
  facts: ConnectionFacts;
  socket: WebSocket;
  lastActiveAt: number;
  /** Settles once `$disconnect` has been handled. */
  closed: Promise<void>;
}

/** Timing limits a connection lives under. */
export interface ConnectionLimits {
  idleTimeoutMs: number;
  maxConnectionMs: number;
}

/** The open connections, by id. */
export class ConnectionRegistry {
  readonly #connections = new Map<string, Connection>();

  /** Ids of the open connections. */
  ids(): string[] {
    return [...this.#connections.keys()];
  }

  /** The connection, if it is still open. */
  get(id: string): Connection | undefined {
    const connection = this.#connections.get(id);
    return connection?.socket.readyState === WebSocket.OPEN ? connection : undefined;
  }

  /**
   * Tracks a freshly upgraded socket. `onClose` runs once the socket is closed, whoever closed it;
   * `touch` must be called on client activity so that the idle timer starts over.
   */
  add(
    facts: ConnectionFacts,
    socket: WebSocket,
    limits: ConnectionLimits,
    onClose: (code: number, reason: string) => Promise<void>,
  ): { connection: Connection; touch: () => void } {
    const goAway = () => socket.close(1001, 'Going Away');
    let idle = setTimeout(goAway, limits.idleTimeoutMs);
    const lifetime = setTimeout(goAway, limits.maxConnectionMs);
    let settle: () => void = () => {};
    const connection: Connection = {
      facts,
      socket,
      lastActiveAt: facts.connectedAt,
      closed: new Promise<void>((resolve) => {
        settle = resolve;
      }),
    };
    this.#connections.set(facts.connectionId, connection);
    socket.on('close', (code, reason) => {
      clearTimeout(idle);
      clearTimeout(lifetime);
      this.#connections.delete(facts.connectionId);
      onClose(code, reason.toString('utf8')).finally(settle);
    });
    const touch = () => {
      connection.lastActiveAt = Date.now();
      clearTimeout(idle);
      idle = setTimeout(goAway, limits.idleTimeoutMs);
    };
    return { connection, touch };
  }

  /** Closes every socket and waits for their `$disconnect` handling. */
  async closeAll(): Promise<void> {
    const all = [...this.#connections.values()];
    for (const connection of all) {
      connection.socket.close(1001, 'Going Away');
      // A client that never answers the close frame would otherwise hold shutdown for ws's 30 s.
      setTimeout(() => connection.socket.terminate(), 1000).unref();
    }
    await Promise.all(all.map((connection) => connection.closed));
  }
}
