import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../lib/config/index.ts';
import { ValidationError } from '../../lib/errors/index.ts';

describe('deployment settings', () => {
  it('applies a default to every field', () => {
    expect(parseSettings(undefined)).toMatchObject({
      stream: { coalesceMs: 250, subscriberRefreshMs: 1_000 },
      runs: { leaseMs: 60_000 },
    });
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

  it('keeps session items until deleted by default, and rejects a retention that cannot work, naming it', () => {
    expect(parseSettings({}).retention).toEqual({});
    expect(parseSettings({ retention: { sessionsDays: 30, eventsDays: 30 } }).retention.eventsDays).toBe(30);
    expect(() => parseSettings({ retention: { sessionsDays: 0 } })).toThrow(/retention\.sessionsDays/);
    expect(() => parseSettings({ retention: { messageDays: 7 } })).toThrow(/retention\.messageDays/);
    // An event log that expires before its session would restart the session's seq.
    expect(() => parseSettings({ retention: { sessionsDays: 30, eventsDays: 7 } })).toThrow(
      /retention\.eventsDays: must be at least retention\.sessionsDays \(30\)/,
    );
    expect(() => parseSettings({ retention: { eventsDays: 7 } })).toThrow(/retention\.eventsDays/);
  });

  it('limits each user and each connection by default, and switches a limit off with false', () => {
    expect(parseSettings({}).limits).toEqual({
      perUser: { requests: 600, windowSeconds: 60 },
      perConnection: { requests: 120, windowSeconds: 60 },
    });
    expect(parseSettings({ limits: { perUser: false } }).limits.perUser).toBe(false);
    expect(() => parseSettings({ limits: { perUser: { requests: 10, windowSeconds: 0 } } })).toThrow(
      /limits\.perUser/,
    );
    expect(parseSettings({}).files).toMatchObject({
      maxFilesPerSession: 100,
      quotaBytesPerSession: 256 * 1024 ** 2,
    });
  });
});
