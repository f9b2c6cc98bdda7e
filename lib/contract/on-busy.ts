import * as z from 'zod';

/**
 * What a message does when a turn of its session is queued or running (what peers call
 * double-texting): `enqueue` it behind that turn (the default), `reject` it (409 `session_busy`
 * naming the turn), `interrupt` the turn (cancelled as by the cancel route, then this message
 * runs), or `steer` it into the turn (the same as `steer: true`). A session that is idle or paused
 * is not busy: every policy then simply runs the message.
 */
export const OnBusySchema = z.enum(['enqueue', 'reject', 'interrupt', 'steer']);
export type OnBusy = z.infer<typeof OnBusySchema>;

/**
 * What is wrong with a message's `on_busy`, if anything: a continuation answers the pending call
 * (nothing for it to overtake or refuse), and `steer` must agree with it when both are given.
 */
export function onBusyProblem(body: {
  on_busy?: OnBusy;
  steer?: boolean;
  tool_call_id?: string;
}): string | undefined {
  if (body.on_busy === undefined) return undefined;
  if (body.tool_call_id !== undefined && body.on_busy !== 'enqueue')
    return 'a continuation answers the pending call: only "enqueue" applies to it';
  if (body.steer !== undefined && body.steer !== (body.on_busy === 'steer'))
    return `contradicts steer: ${body.steer} (steer: true is on_busy: "steer")`;
  return undefined;
}

/** The policy a parsed message asks for: `steer: true` is an alias of `steer`. */
export function onBusyOf(body: { on_busy?: OnBusy; steer?: boolean }): OnBusy {
  return body.on_busy ?? (body.steer ? 'steer' : 'enqueue');
}
