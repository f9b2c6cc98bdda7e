import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../lib/config/index.ts';
import { ValidationError } from '../../lib/errors/index.ts';

describe('deployment settings', () => {
  it('applies a default to every field', () => {
    expect(parseSettings(undefined)).toMatchObject({ stream: { coalesceMs: 25 }, runs: { leaseMs: 60_000 } });
    expect(parseSettings('')).toEqual(parseSettings({}));
  });

  it('reads SWITCHBOARD_SETTINGS as JSON', () => {
    expect(parseSettings('{"stream":{"coalesceMs":0}}').stream.coalesceMs).toBe(0);
  });

  it('fails at start-up on an unknown field or a value out of range, naming it', () => {
    expect(() => parseSettings({ stream: { coalesceMS: 5 } })).toThrow(/stream\.coalesceMS/);
    expect(() => parseSettings({ runs: { leaseMs: 10 } })).toThrow(ValidationError);
    expect(() => parseSettings('{not json')).toThrow(/not valid JSON/);
  });
});
