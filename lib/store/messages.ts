import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingAction, StopReason, Usage } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys, prefixes } from './keys.ts';
import { isConditionFailure, queryAll, strip } from './table.ts';

/** A stored message of a session. */
export interface MessageRecord {
  messageId: string;
  sessionId: string;
  runId: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
  metadata?: Record<string, unknown>;
  toolCalls?: { id: string; name: string; args?: unknown; result?: unknown; error?: unknown; ok?: boolean }[];
  pendingActions?: PendingAction[];
  stopReason?: StopReason;
  usage?: Usage;
}

/**
 * Message ids carry their run's ULID and their place in it, so that a session's messages sort in
 * conversation order even when the next user message was stored before this turn's answer.
 */
export function messageId(runId: string, position: number): string {
  return `msg_${runId.replace(/^run_/, '')}_${position.toString().padStart(3, '0')}`;
}

/** Stores a message once; storing the same message again (a retry) changes nothing. */
export async function putMessage(rt: Runtime, message: MessageRecord): Promise<void> {
  try {
    await rt.db.send(
      new PutCommand({
        TableName: rt.table,
        Item: { ...keys.message(message.sessionId, message.messageId), type: 'message', ...message },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** A session's messages in order, optionally only those up to and including `through`. */
export async function listMessages(
  rt: Runtime,
  sessionId: string,
  options: { through?: string } = {},
): Promise<MessageRecord[]> {
  const pk = keys.session(sessionId).pk;
  const items = await queryAll(rt, {
    KeyConditionExpression: options.through
      ? 'pk = :pk AND sk BETWEEN :from AND :to'
      : 'pk = :pk AND begins_with(sk, :from)',
    ExpressionAttributeValues: {
      ':pk': pk,
      ':from': prefixes.message,
      ...(options.through && { ':to': keys.message(sessionId, options.through).sk }),
    },
    ConsistentRead: true,
  });
  return items.map((item) => strip(item) as unknown as MessageRecord);
}
