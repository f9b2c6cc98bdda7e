import { fileURLToPath } from 'node:url';
import { subscribers } from '../../lib/store/index.ts';
import { barePostFloor, bareWriteFloor, rawWebSocketFloor } from '../floors.ts';
import { refOf } from '../support/sandbox-api.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';
import type { Bench } from './bench-sandbox.ts';

/** The latency floors (ms): a raw WebSocket on loopback, a bare PostToConnection, a bare event-log write. */
export interface Floors {
  rawWs: number[];
  barePost: number[];
  bareWrite: number[];
}

/** Measures the latency floors on the bench's sandbox; first, while nothing else runs. */
export async function measureFloors(bench: Bench): Promise<Floors> {
  const { sandbox, paced } = bench;
  const rawWs = await rawWebSocketFloor();
  const floorHost = await TestSocket.open(sandbox.wsUrl);
  const floorSession = 'floor-post';
  paced.release(floorSession);
  const created = await floorHost.request({
    action: 'assistant_message',
    session_id: floorSession,
    agent_id: 'paced',
    content: JSON.stringify({ before: 1, after: 0, intervalMs: 0, toolCalls: 0, approval: false }),
  });
  await floorHost.waitFor(turnEnded(created.run_id), 'the floor session to settle', 30_000);
  const [{ connectionId } = { connectionId: undefined }] = await subscribers(
    sandbox.runtime,
    refOf(floorSession),
  );
  const connections = await sandbox.runtimes.worker.connections?.();
  if (!connectionId || !connections) throw new Error('no connection to measure the bare post on');
  const barePost = await barePostFloor(connections, connectionId, floorHost.socket);
  await floorHost.close();
  const bareWrite = await bareWriteFloor(sandbox.runtimes.worker, 'floor-write');
  return { rawWs, barePost, bareWrite };
}

/** The construct's memory sizes (MB), for the Lambda bill. */
export interface MemorySizes {
  worker: number;
  other: number;
  note: string;
}

/** The construct's memory sizes, read from infra/props.ts's defaults. */
export async function memorySizes(): Promise<MemorySizes> {
  try {
    const { checkSwitchboardProps } = await import('../../infra/props.ts');
    const { resolved: props } = checkSwitchboardProps({
      agents: fileURLToPath(new URL('../../demo/agents.ts', import.meta.url)),
      allowAnonymous: true,
    });
    return { worker: props.workerMemorySize, other: props.memorySize, note: 'infra/props.ts defaults' };
  } catch (error) {
    return { worker: 1024, other: 512, note: `assumed (infra/props.ts could not be read: ${String(error)})` };
  }
}
