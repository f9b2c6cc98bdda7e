import { appendFileSync, readFileSync } from 'node:fs';
import type { HostAgentCancelInput } from '../../lib/contract/index.ts';
import { createSwitchboard } from '../../lib/index.ts';

/**
 * Agents for a worker that runs in a child process (the sandbox's `workerProcess`), so that a test
 * can kill it mid-turn. The test sees them only through the event log, the table, and, when
 * CRASH_AGENTS_LOG names a file, one JSON line per invoke and cancel hook call written there.
 */
const record = (entry: Record<string, unknown>) => {
  const file = process.env.CRASH_AGENTS_LOG;
  if (file) appendFileSync(file, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
};

/** One line of the file CRASH_AGENTS_LOG names: an invoke or a cancel hook call, by which process. */
export interface AgentCall {
  pid: number;
  invoke?: string;
  message?: string;
  cancel?: HostAgentCancelInput;
}

/** The calls the agents recorded in `file`, in order. */
export function readAgentCalls(file: string): AgentCall[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AgentCall);
}

/** The first text chunk of a 'slow' turn: once per invoke, so the log counts the invokes. */
export const SLOW_FIRST_CHUNK = 'slow: started. ';

/** The message 'slow' answers at once. */
export const QUICK_MESSAGE = 'are you there?';

const app = createSwitchboard();
const cancel = async (input: HostAgentCancelInput) => record({ cancel: input });
app.registerHostAgent({
  info: { id: 'slow' },
  async invoke({ message }, { emit, signal }) {
    record({ invoke: 'slow', message });
    // A session keeps its agent, so the message after a crash goes to this agent too: this one is answered at once.
    if (message === QUICK_MESSAGE) {
      emit({ type: 'text', text: `right away: ${message}` });
      return {};
    }
    emit({ type: 'text', text: SLOW_FIRST_CHUNK });
    // Long enough that the turn is always cut short by the test, by a kill or a stop.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 30_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { content: 'slow: done.' };
  },
  cancel,
});
export default app;
