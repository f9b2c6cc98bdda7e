/**
 * `<AgentPicker>`: the agents the caller may talk to (`GET /api/agents`), as a labelled select.
 */
import { useEffect, useId, useState } from 'react';
import type { AgentList, SwitchboardClient } from '../client/index.ts';
import { describe } from './format.ts';

/** An agent as `GET /api/agents` lists it. */
export type AgentSummary = AgentList['agents'][number];

/** The props of {@link AgentPicker}. */
export interface AgentPickerProps {
  client: SwitchboardClient;
  /** The agent chosen now; without one, the server's default is shown chosen. */
  value?: string;
  /** Called with the agent a person picks. */
  onChange: (agent: AgentSummary) => void;
  /** The select's label. */
  label?: string;
  className?: string;
}

/**
 * The agents as options, by name; the one chosen (or the server's default) selected.
 *
 * @example
 * ```tsx
 * <AgentPicker client={client} value={agentId} onChange={(agent) => setAgentId(agent.id)} />
 * ```
 */
export function AgentPicker({ client, value, onChange, label = 'Agent', className }: AgentPickerProps) {
  const [list, setList] = useState<AgentList>();
  const [problem, setProblem] = useState<string>();
  const id = useId();
  useEffect(() => {
    client.agents().then(setList, (error: unknown) => setProblem(describe(error)));
  }, [client]);
  const chosen = value ?? list?.default_agent_id ?? list?.agents[0]?.id ?? '';
  return (
    <span className={className ? `sb-agent-picker ${className}` : 'sb-agent-picker'}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={chosen}
        disabled={!list}
        onChange={(event) => {
          const agent = list?.agents.find((candidate) => candidate.id === event.target.value);
          if (agent) onChange(agent);
        }}
      >
        {list?.agents.map((agent) => (
          <option key={agent.id} value={agent.id} title={agent.description}>
            {agent.name ?? agent.id}
          </option>
        ))}
      </select>
      {problem && (
        <span className="error" role="alert">
          {problem}
        </span>
      )}
    </span>
  );
}
