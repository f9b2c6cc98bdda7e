import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../lib/contract/index.ts';
import { messageLimits, withLimits } from '../../lib/documents/limits.ts';
import { ValidationError } from '../../lib/errors/index.ts';

const protocol = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');

describe('the limits of a message in docs/protocol.md', () => {
  it('are the table the zod schemas make (run `npm run contract` after a change)', () => {
    expect(protocol, 'docs/protocol.md states other limits: run npm run contract').toBe(withLimits(protocol));
  });

  it('name every bound beyond the seed’s, with its number', () => {
    const limits = Object.fromEntries(messageLimits());
    expect(limits).toMatchObject({
      '`host_context.view.description`': 'at most 4,000 characters',
      '`host_context.actions[].description`': 'at most 4,000 characters',
      '`host_context.navigation[].description`': 'at most 2,000 characters',
      '`host_context.view.name`': '1–200 characters',
      '`host_context.navigation[].name`': '1–200 characters',
      '`host_context.host.name`': 'at most 200 characters',
      '`host_context.background.*.state`': 'at most 200 characters',
      '`host_context.captured_at`': 'at most 100 characters',
      '`host_context.host.version`': 'at most 100 characters',
      '`metadata`': 'at most 16,384 bytes of JSON',
    });
  });

  it('are what the schema enforces: one over a stated length is refused at its path, one at it is taken', () => {
    const view = (description: string) => ({
      content: 'x',
      host_context: { view: { name: 'v', description } },
    });
    expect(() => parseChatRequest(view('d'.repeat(4_000)))).not.toThrow();
    try {
      parseChatRequest(view('d'.repeat(4_001)));
      expect.unreachable('a description over 4,000 characters was taken');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues?.map((i) => i.path)).toContainEqual([
        'host_context',
        'view',
        'description',
      ]);
    }
  });
});
