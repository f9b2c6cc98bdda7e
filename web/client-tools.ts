/** The client tools this page runs for the agent (the demo's `local_time`), by name: both views answer them. */
export const CLIENT_TOOLS: Record<string, () => unknown> = {
  local_time: () => ({
    time: new Date().toLocaleTimeString(),
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  }),
};
