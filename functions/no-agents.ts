import type { Switchboard } from '../lib/agents/index.ts';

/**
 * What `#agents` names when no agents module was given. The functions are bundled with the team's
 * module in its place (the construct's `agents` option, an esbuild alias), and the sandbox loads the
 * one `switchboard dev --agents FILE` names, so this module is only reached by a build that forgot it.
 */
function noAgentsModule(): never {
  throw new Error(
    'Switchboard: no agents module. Give the construct its agents option (new Switchboard(stack, id, { agents })) ' +
      'or the sandbox its --agents FILE (switchboard dev --agents ./agents.ts).',
  );
}

const app: Switchboard = noAgentsModule();
export default app;
