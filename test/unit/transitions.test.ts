import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_ENDS, ACTION_TRANSITIONS } from '../../lib/store/action-machine.ts';
import { withTransitions } from '../../lib/store/machine-doc.ts';
import { RUN_ENDS, RUN_TRANSITIONS } from '../../lib/store/run-machine.ts';
import { transitionUpdate } from '../../lib/store/table.ts';
import type { ActionStatus, RunStatus, Transition } from '../../lib/store/types.ts';

/** Every status, each type's union written out: a status added to the type and not here fails tsc. */
const RUN_STATUSES = {
  queued: 1,
  running: 1,
  completed: 1,
  requires_action: 1,
  error: 1,
  cancelled: 1,
  incomplete: 1,
  steered: 1,
} satisfies Record<RunStatus, 1>;
const ACTION_STATUSES = {
  pending: 1,
  queued: 1,
  resolved: 1,
  cancelled: 1,
  expired: 1,
  superseded: 1,
} satisfies Record<ActionStatus, 1>;

const machines = [
  {
    name: 'run',
    transitions: RUN_TRANSITIONS as Record<string, Transition>,
    statuses: Object.keys(RUN_STATUSES),
    /** The statuses an item is put in (putRun). */
    starts: ['queued'],
    ends: RUN_ENDS as readonly string[],
  },
  {
    name: 'request',
    transitions: ACTION_TRANSITIONS as Record<string, Transition>,
    statuses: Object.keys(ACTION_STATUSES),
    /** The statuses an item is put in (putAction: a host call behind another is queued). */
    starts: ['pending', 'queued'],
    ends: ACTION_ENDS as readonly string[],
  },
];

describe.each(machines)('the $name transitions', ({ transitions, statuses, starts, ends }) => {
  const all = Object.entries(transitions);

  it('each leave a set of known statuses and enter known ones', () => {
    for (const [name, t] of all) {
      expect(t.from.length, name).toBeGreaterThan(0);
      for (const status of [...t.from, ...(t.to ?? [])])
        expect(statuses, `${name}: ${status}`).toContain(status);
      expect(t.set.length, name).toBeGreaterThan(0);
    }
  });

  it('never leave an ended status, and every status an item is not put in is entered by one', () => {
    for (const [name, t] of all)
      for (const end of ends) expect(t.from, `${name} leaves ${end}`).not.toContain(end);
    const entered = new Set(all.flatMap(([, t]) => t.to ?? []));
    for (const status of statuses.filter((s) => !starts.includes(s)))
      expect(entered, status).toContain(status);
    // Every status that has not ended is left by some transition: nothing waits in it for ever.
    const left = new Set(all.flatMap(([, t]) => t.from));
    for (const status of statuses.filter((s) => !ends.includes(s))) expect(left, status).toContain(status);
  });

  it('that change the status find their own write when a retry meets it', () => {
    for (const [name, t] of all) if (t.to) expect(t.again?.length, name).toBeGreaterThan(0);
  });
});

describe('the one builder of a transition’s write', () => {
  it('conditions on the statuses it leaves, the guard, or the write applied already, and answers the item both ways', () => {
    const input = transitionUpdate(
      RUN_TRANSITIONS.finish,
      { pk: 'p', sk: 's' },
      { stopReason: 'end_turn', endedAt: 'at', error: null, usage: null, leaseOwner: 'w' },
      { to: 'completed' },
    );
    expect(input).toEqual({
      Key: { pk: 'p', sk: 's' },
      UpdateExpression:
        'SET #status = :status,#stopReason = :stopReason,#endedAt = :endedAt,#error = :error,#usage = :usage REMOVE leaseExpiresAt',
      ConditionExpression:
        '(#status IN (:running) AND (#leaseOwner = :leaseOwner)) OR (#status = :status AND #endedAt = :endedAt AND #leaseOwner = :leaseOwner)',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#stopReason': 'stopReason',
        '#endedAt': 'endedAt',
        '#error': 'error',
        '#usage': 'usage',
        '#leaseOwner': 'leaseOwner',
      },
      ExpressionAttributeValues: {
        ':status': 'completed',
        ':stopReason': 'end_turn',
        ':endedAt': 'at',
        ':error': null,
        ':usage': null,
        ':running': 'running',
        ':leaseOwner': 'w',
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('leaves the status alone for a mark, and names only the statuses a writer says it leaves', () => {
    const mark = transitionUpdate(RUN_TRANSITIONS.cancel, { pk: 'p', sk: 's' }, { cancelRequested: 'user' });
    expect(mark.UpdateExpression).toBe('SET #cancelRequested = :cancelRequested');
    expect(mark.ConditionExpression).toBe('(#status IN (:queued, :running))');
    const queuedOnly = transitionUpdate(
      ACTION_TRANSITIONS.decide,
      { pk: 'p', sk: 's' },
      {
        resolution: null,
        resolutionBlobKey: null,
        actor: 'a',
        channel: 'api',
        expired: false,
        resolvedAt: 'at',
        decidedBy: null,
      },
      { to: 'cancelled', from: ['queued'] },
    );
    expect(queuedOnly.ConditionExpression).toBe(
      '(#status IN (:queued)) OR (#status = :status AND #resolvedAt = :resolvedAt AND #actor = :actor)',
    );
    expect(queuedOnly.ExpressionAttributeValues).toMatchObject({
      ':queued': 'queued',
      ':status': 'cancelled',
    });
    expect(queuedOnly.ExpressionAttributeValues).not.toHaveProperty(':pending');
  });
});

describe('the transitions in docs/runs.md', () => {
  it('are the tables the machines make (run `npm run contract` after a change)', () => {
    const runs = readFileSync(new URL('../../docs/runs.md', import.meta.url), 'utf8');
    expect(runs, 'docs/runs.md lists other transitions: run npm run contract').toBe(withTransitions(runs));
  });
});
