/**
 * The latency floors an event's trip is compared with, measured in the bench's own process: a raw
 * `ws` message on loopback, and a bare SDK PostToConnection to the sandbox's `@connections` endpoint
 * (send to arrival at the host's socket). Both are one-way, timed on the one `performance.now()` clock.
 */
import { performance } from 'node:perf_hooks';
import {
  type ApiGatewayManagementApiClient,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import WebSocket, { WebSocketServer } from 'ws';
import type { Runtime } from '../lib/config/index.ts';
import { appendEvents } from '../lib/store/index.ts';

/** A frame about the size of a text event's (~200 bytes). */
const payload = (i: number) => JSON.stringify({ type: 'bench.ping', i, pad: 'x'.repeat(160) });

/** One-way latencies (ms) of `count` messages sent one after another from a ws server to its client on loopback. */
export async function rawWebSocketFloor(count = 200): Promise<number[]> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as { port: number };
  const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => resolve());
    client.once('error', reject);
  });
  const peer = await accepted;
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const arrived = new Promise<number>((resolve) =>
      client.once('message', () => resolve(performance.now())),
    );
    const sent = performance.now();
    peer.send(payload(i));
    latencies.push((await arrived) - sent);
  }
  client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return latencies;
}

/**
 * One-way latencies (ms) of `count` PostToConnection calls, one after another, with `connections`
 * (the worker's client: through the sandbox's IAM front, as the worker's posts go) to `connectionId`,
 * timed from the call to the frame's arrival at `socket`.
 */
export async function barePostFloor(
  connections: ApiGatewayManagementApiClient,
  connectionId: string,
  socket: WebSocket,
  count = 100,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const data = payload(i);
    const arrived = new Promise<number>((resolve) => {
      const listen = (raw: WebSocket.RawData) => {
        if (String(raw) !== data) return;
        socket.off('message', listen);
        resolve(performance.now());
      };
      socket.on('message', listen);
    });
    const sent = performance.now();
    await connections.send(
      new PostToConnectionCommand({ ConnectionId: connectionId, Data: new TextEncoder().encode(data) }),
    );
    latencies.push((await arrived) - sent);
  }
  return latencies;
}

/**
 * Latencies (ms) of `count` bare event-log writes, one after another, with `rt` (the worker's
 * runtime: through the sandbox's IAM front, as the worker's writes go): one event each, of a text
 * event's size, stored by the log's own conditional put on a session of their own.
 */
export async function bareWriteFloor(rt: Runtime, sessionId: string, count = 100): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const event = {
      seq: i + 1,
      type: 'bench.ping',
      session_id: sessionId,
      run_id: 'floor',
      at: new Date(rt.clock()).toISOString(),
      data: { pad: 'x'.repeat(160) },
    };
    const started = performance.now();
    await appendEvents(rt, [event], 'floor');
    latencies.push(performance.now() - started);
  }
  return latencies;
}
