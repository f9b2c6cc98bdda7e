import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../lib/errors/index.ts';
import type { ModelTool } from '../../lib/models/types.ts';
import { modelTurn, type RawEndpoint, startRawEndpoint } from '../support/model-endpoint.ts';
import { hostileChatChunk, hostileModelAnswer, hostileResponsesEvent } from './arbitraries.ts';

/**
 * Hostile answers of a model endpoint through both wires, from a real HTTP endpoint to the real
 * `openai` client, the wire's reader and the loop: whatever comes, no prototype is polluted, nothing
 * is thrown but a documented error (`model_error`), and a turn that does not fail ends with a result.
 *
 * Set SWITCHBOARD_PROPERTY_SEED to replay a failure.
 */
const SEED = Number(process.env.SWITCHBOARD_PROPERTY_SEED ?? 20_261_207);

/** A backend tool the model may call, so that calls reach the loop's tool path too. */
const TOOLS: ModelTool[] = [{ name: 'lookup', execute: (args) => ({ echoed: args }) }];

/** The prototypes a polluted parse would change. */
const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype };
/** Each own property of a prototype, by name (symbols included), with its descriptor. */
const propertiesOf = (proto: object) =>
  new Map(Reflect.ownKeys(proto).map((key) => [key, Object.getOwnPropertyDescriptor(proto, key)]));
const BEFORE = new Map(Object.entries(PROTOTYPES).map(([name, proto]) => [name, propertiesOf(proto)]));
const sameDescriptor = (a?: PropertyDescriptor, b?: PropertyDescriptor) =>
  a?.value === b?.value && a?.get === b?.get && a?.set === b?.set;

/**
 * The properties a run added to a prototype or changed on it, put back as they were (so that one
 * polluting answer does not make every later run fail, and the counterexample is the answer that
 * polluted).
 */
function pollution(): string[] {
  const found: string[] = [];
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    const before = BEFORE.get(name) ?? new Map();
    for (const [key, now] of propertiesOf(proto)) {
      const was = before.get(key);
      if (was && sameDescriptor(was, now)) continue;
      found.push(`${name}.prototype.${String(key)}`);
      if (was) Object.defineProperty(proto, key, was);
      else Reflect.deleteProperty(proto, key);
    }
  }
  return found;
}

let endpoint: RawEndpoint;
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

beforeAll(async () => {
  endpoint = await startRawEndpoint();
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  await endpoint?.close();
});

describe('hostile model endpoints', () => {
  for (const [api, chunk] of [
    ['chat', hostileChatChunk],
    ['responses', hostileResponsesEvent],
  ] as const) {
    it(`${api}: no prototype polluted, no uncaught error, every turn a result or a documented model_error`, async () => {
      const seed = SEED + (api === 'chat' ? 0 : 1);
      await fc.assert(
        fc.asyncProperty(hostileModelAnswer(chunk), async (answer) => {
          endpoint.answer = answer;
          const turn = await modelTurn(api, endpoint.baseURL, { tools: TOOLS });
          expect(pollution()).toEqual([]);
          expect(uncaught).toEqual([]);
          if (turn.error === undefined) {
            expect(turn.result).toBeTypeOf('object');
          } else {
            const code = (turn.error as { code?: unknown }).code;
            expect(typeof code === 'string' && isErrorCode(code), String(turn.error)).toBe(true);
            expect(code, String(turn.error)).toBe('model_error');
          }
        }),
        { seed, numRuns: 80 },
      );
    });
  }
});
