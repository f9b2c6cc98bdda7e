import type { ScheduledEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { startSchedule } from '../../sandbox/schedule.ts';
import { Recorder } from './helpers.ts';

describe('schedule', () => {
  it('invokes the handler every periodMs with a Scheduled Event for the rule', async () => {
    const runs = new Recorder<ScheduledEvent>();
    const ruleArn = 'arn:aws:events:eu-west-1:123456789012:rule/sweep';
    const schedule = startSchedule({
      periodMs: 20,
      ruleArn,
      handler: async (event) => void runs.push(event),
    });
    await runs.waitFor(() => runs.items.length >= 2);
    await schedule.stop();
    const [first, second] = runs.items;
    expect(first).toMatchObject({
      source: 'aws.events',
      region: 'eu-west-1',
      account: '123456789012',
      resources: [ruleArn],
    });
    expect(second?.id).not.toBe(first?.id);
  });

  it('skips a tick while the previous run is still going', async () => {
    let release: () => void = () => {};
    let calls = 0;
    const schedule = startSchedule({
      periodMs: 60_000,
      handler: () => {
        calls += 1;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    const first = schedule.tick();
    const second = schedule.tick();
    expect(calls).toBe(1);
    release();
    await Promise.all([first, second]);
    const third = schedule.tick();
    expect(calls).toBe(2);
    release();
    await third;
    await schedule.stop();
  });
});
