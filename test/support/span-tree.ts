import type { SpanNode } from '../../sandbox/trace-receiver.ts';

/** The first span named `name` in a tree of the sandbox's receiver, depth first. */
export function findSpan(nodes: SpanNode[], name: string): SpanNode | undefined {
  for (const node of nodes) {
    if (node.name === name) return node;
    const inner = findSpan(node.children, name);
    if (inner) return inner;
  }
  return undefined;
}
