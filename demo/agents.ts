import { createSwitchboard } from '../lib/index.ts';
import { demoAgent } from './demo-agent.ts';

/**
 * The agents module of this repository's own deployment and of `npm start`: a team writes the
 * same kind of module for its agents and hands its path to the `Switchboard` construct.
 */
const server = createSwitchboard();
server.registerHostAgent(demoAgent());

export default server;
