import type { Switchboard } from '../agents/index.ts';
import { type Identity, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { type DomainEvent, pauseResolved, publishEvents } from '../events/index.ts';
import {
  type ActionRecord,
  decideAction,
  isOpen,
  listActions,
  listMessages,
  markReplaced,
  messageId,
  openActions,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import type { EventStream } from './event-stream.ts';
import type { Rewrite } from './types.ts';

/*
 * What a new turn leaves behind: the requests still open when it is accepted (a new message and a
 * rewrite decide them before they are queued) and, for a rewrite, the messages it cuts away (cut
 * back when its run starts, in the worker).
 */

/**
 * Decides open requests that a newer run (`runId`) leaves behind, without an answer: a host call is
 * superseded, any other request withdrawn (cancelled, by system). One conditional write each, so a
 * request someone answered meanwhile stays answered. Returns the decided records, and the domain
 * events for those that had been announced as opened.
 */
async function decideLeftBehind(
  rt: Runtime,
  session: SessionRecord,
  actions: ActionRecord[],
  runId: string,
): Promise<{ decided: ActionRecord[]; events: (DomainEvent | undefined)[] }> {
  const decided: ActionRecord[] = [];
  const events: (DomainEvent | undefined)[] = [];
  for (const action of actions) {
    const host = action.kind === 'host_tool';
    const done = await decideAction(
      rt,
      session.sessionId,
      action.actionId,
      { status: host ? 'superseded' : 'cancelled', actor: 'system', channel: 'system', decidedBy: runId },
      { now: rt.clock(), mustBeLive: false, from: action.status },
    );
    if (!done.decided) continue;
    decided.push(done.action);
    // A queued host call was never announced as opened: its end is not announced either.
    if (action.status === 'pending') events.push(pauseResolved(session, done.action, rt.clock()));
  }
  return { decided, events };
}

/**
 * A new message decides what is open before it is queued: a pending host call is superseded (a
 * late continuation for it is then a 409), and under `pendingActionPolicy: 'cancel'` open requests
 * are withdrawn, as are, whatever the policy, those asked on the messages a regenerate or an edit
 * cuts away (`cut`). The new turn's run announces them and tells the cancel hook.
 */
export async function supersedeOpen(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  session: SessionRecord,
  runId: string,
  cut?: (messageId: string) => boolean,
): Promise<string[]> {
  // One read of the session's requests: what is open, and (a retry after a crash) what this run
  // already decided, which is still its to announce.
  const actions = await listActions(rt, session.sessionId);
  const open = actions.filter(isOpen);
  const earlier = actions.filter((a) => a.decidedBy === runId).map((a) => a.actionId);
  if (open.length === 0) return earlier;
  const agent = await app.resolveAgent(session.agentId, requestContextOf(identity));
  const policy = agent?.definition.pendingActionPolicy ?? 'keep';
  const { decided, events } = await decideLeftBehind(
    rt,
    session,
    open.filter((a) => a.kind === 'host_tool' || policy === 'cancel' || cut?.(a.messageId)),
    runId,
  );
  await publishEvents(rt, events);
  return [...earlier, ...decided.map((a) => a.actionId)];
}

/**
 * Whether a message is cut away by a rewrite whose run is `runId` and runs `userMessageId`: for an
 * edit the edited message and everything after it, for a regenerate everything after the question
 * it answers again; never the run's own messages.
 */
export function cutAway(
  rewrite: Pick<Rewrite, 'mode' | 'fromMessageId'>,
  userMessageId: string,
  runId: string,
): (messageId: string) => boolean {
  const own = messageId(runId, 0);
  return (id) => (rewrite.mode === 'edit' ? id >= rewrite.fromMessageId : id > userMessageId) && id < own;
}

/**
 * Cuts the conversation back for a regenerate or an edit, as its run starts (every turn queued
 * before it has ended by then): each message after the cut and before this run's own is marked
 * replaced (kept, left out of the conversation), and `messages.replaced` says which. A regenerate
 * keeps the user message it runs; an edit replaces the message it changes.
 *
 * First, the requests still open on those messages are decided as the message's submission decides
 * them (see `supersedeOpen`): those a turn queued ahead of this one asked after it was accepted. So
 * no request is left open on a message nobody sees. Returns them, for the run to announce.
 */
export async function cutBack(
  rt: Runtime,
  session: SessionRecord,
  run: RunRecord,
  stream: EventStream,
): Promise<ActionRecord[]> {
  if (!run.rewrite) return [];
  const { mode, fromMessageId } = run.rewrite;
  const cut = cutAway(run.rewrite, run.userMessageId, run.runId);
  const open = (await openActions(rt, run.sessionId)).filter((a) => cut(a.messageId));
  const { decided, events } = await decideLeftBehind(rt, session, open, run.runId);
  const replacement = { by: run.runId, mode, at: new Date(rt.clock()).toISOString() };
  const replaced: string[] = [];
  for (const m of (await listMessages(rt, run.sessionId, { current: true })).filter((m) =>
    cut(m.messageId),
  )) {
    if (await markReplaced(rt, run.sessionId, m.messageId, replacement)) replaced.push(m.messageId);
  }
  stream.append('messages.replaced', { message_ids: replaced, mode, from_message_id: fromMessageId });
  await publishEvents(rt, events);
  return decided;
}
