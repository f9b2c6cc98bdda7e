import type { SpanNode, TurnTrace } from './trace-receiver.ts';

/** A duration for a person: `0.8 ms`, `12 ms`, `1.24 s`. */
export function duration(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

const text = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));

/**
 * What a span's line says beside its name and duration: the model call's tokens and finish, a
 * tool's name and outcome, the status code of an answer, the run of a turn, a failure's message.
 */
export function spanDetails(span: SpanNode): string[] {
  const a = span.attributes;
  const details: string[] = [];
  if (a['gen_ai.response.model'] !== undefined || a['gen_ai.request.model'] !== undefined)
    details.push(`model ${text(a['gen_ai.response.model'] ?? a['gen_ai.request.model'])}`);
  const input = a['gen_ai.usage.input_tokens'];
  const output = a['gen_ai.usage.output_tokens'];
  if (input !== undefined || output !== undefined)
    details.push(`tokens ${input ?? '?'} in / ${output ?? '?'} out`);
  if (a['gen_ai.response.finish_reasons'] !== undefined)
    details.push(`finish ${text(a['gen_ai.response.finish_reasons'])}`);
  if (a['gen_ai.tool.name'] !== undefined) details.push(`tool ${text(a['gen_ai.tool.name'])}`);
  for (const [key, value] of Object.entries(a))
    if (key.endsWith('.outcome') || key === 'switchboard.stop_reason')
      details.push(`${key.split('.').at(-1)} ${text(value)}`);
  if (a['gen_ai.operation.name'] === 'execute_tool' && span.status.code !== 'error')
    if (!details.some((d) => d.startsWith('outcome '))) details.push('ok');
  if (a['switchboard.run.id'] !== undefined) details.push(`run ${text(a['switchboard.run.id'])}`);
  if (a['http.response.status_code'] !== undefined)
    details.push(`status ${text(a['http.response.status_code'])}`);
  if (span.status.code === 'error') details.push(`failed: ${span.status.message ?? 'error'}`);
  if (span.links.length > 0) details.push(`linked to ${span.links.map((l) => l.spanId).join(', ')}`);
  return details;
}

function lines(span: SpanNode, depth: number, out: string[]): void {
  const details = spanDetails(span);
  const indent = '  '.repeat(depth);
  out.push(
    `${indent}${span.name}  ${duration(span.durationMs)}${details.length ? `  ${details.join(' · ')}` : ''}`,
  );
  for (const event of span.events)
    out.push(`${indent}  · ${event.name} at +${duration(event.timeMs - span.startMs)}`);
  for (const child of span.children) lines(child, depth + 1, out);
}

/** A session's traces as text: each turn's span tree, indented, with durations, tokens and tool outcomes. */
export function tracesText(sessionId: string, traces: readonly TurnTrace[]): string {
  if (traces.length === 0)
    return `No traces of session ${sessionId} in the sandbox yet (a turn's spans arrive when its functions flush them).`;
  const out: string[] = [];
  traces.forEach((trace, i) => {
    out.push(
      `turn ${i + 1} of session ${sessionId}: trace ${trace.traceId}${trace.runId ? `, run ${trace.runId}` : ''}${trace.agentId ? `, agent ${trace.agentId}` : ''}, ${new Date(trace.startMs).toISOString()}, ${duration(trace.durationMs)}, ${trace.spans} spans`,
    );
    for (const root of trace.roots) lines(root, 1, out);
  });
  return out.join('\n');
}
