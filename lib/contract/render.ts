import type { HostContext } from './host-context.ts';

/** The host's text must not be able to close the block early and speak as the runtime. */
const guard = (text: string) => text.replace(/<\/?host_context/gi, (tag) => tag.replace('<', '&lt;'));
const json = (value: unknown) => guard(JSON.stringify(value));
const scalar = (value: unknown) => (typeof value === 'string' ? guard(value) : json(value));

function hostLine(host: NonNullable<HostContext['host']>): string {
  const about = [host.kind, host.version && `version ${guard(host.version)}`].filter(Boolean).join(', ');
  return `Host: ${host.name ? guard(host.name) : 'unnamed host'}${about ? ` (${about})` : ''}`;
}

function viewLines(view: NonNullable<HostContext['view']>): string[] {
  const lines = [`View: ${guard(view.name)}${view.description ? ` - ${guard(view.description)}` : ''}`];
  const data = Object.entries(view.data ?? {});
  if (data.length > 0)
    lines.push('View data:', ...data.map(([key, value]) => `- ${guard(key)}: ${scalar(value)}`));
  if (view.state !== undefined) lines.push(`View state: ${json(view.state)}`);
  return lines;
}

const named = (items: { name: string; description?: string }[]) =>
  items.map((i) => `${guard(i.name)}${i.description ? ` (${guard(i.description)})` : ''}`).join('; ');

/**
 * The `<host_context>` block that starts the user message: host metadata described, view.data as
 * key-value pairs, view.state and extensions as JSON, background on one line, captured_at as given.
 * Attachments are not rendered: they reach the agent as content of their own.
 *
 * A turn's `prompt` already starts with it. An agent renders it itself where the host contract
 * puts the current context and no prompt carries it: after a continuation's tool result.
 *
 * @example
 * ```ts
 * async resolveAction({ action, resolution, hostContext }) {
 *   const toolResult = JSON.stringify(resolution.output ?? null);
 *   const next = hostContext ? `${toolResult}\n\n${renderHostContext(hostContext)}` : toolResult;
 *   return { content: `${action.toolName} returned; the model reads ${next.length} characters.` };
 * }
 * ```
 */
export function renderHostContext(context: HostContext): string {
  const lines: string[] = [];
  if (context.host) lines.push(hostLine(context.host));
  if (context.view) lines.push(...viewLines(context.view));
  if (context.navigation?.length) lines.push(`Navigation: ${named(context.navigation)}`);
  if (context.actions?.length) lines.push(`Host actions: ${named(context.actions)}`);
  const background = Object.entries(context.background ?? {});
  if (background.length > 0) {
    const parts = background.map(
      ([name, b]) =>
        `${guard(name)}: ${guard(b.state)}${b.summary === undefined ? '' : ` ${json(b.summary)}`}`,
    );
    lines.push(`Background: ${parts.join('; ')}`);
  }
  if (context.captured_at !== undefined) lines.push(`Captured at: ${guard(context.captured_at)}`);
  if (context.extensions !== undefined) lines.push(`Extensions: ${json(context.extensions)}`);
  return `<host_context>\n${lines.join('\n')}\n</host_context>`;
}
