import { UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys, prefixes } from './keys.ts';
import { queryAll, strip } from './table.ts';

/** A person's rating of one answer: `null` when it was withdrawn. */
export type Rating = 'up' | 'down' | null;

/** The rating stored with a message (an item beside it, `FEEDBACK#<message id>`). */
export interface FeedbackRecord {
  messageId: string;
  rating: Rating;
  reasons: string[];
  comment?: string;
  /** Who rated it last. */
  userId: string;
  /** When it was first rated. */
  createdAt: string;
  updatedAt: string;
}

/**
 * Stores a rating, replacing the one before (one UpdateItem, so sending it twice is safe), and
 * returns what it replaced. `createdAt` keeps the time of the first rating.
 */
export async function putFeedback(
  rt: Runtime,
  sessionId: string,
  feedback: Omit<FeedbackRecord, 'createdAt'>,
): Promise<{ stored: FeedbackRecord; previous?: FeedbackRecord }> {
  const comment = feedback.comment !== undefined;
  const { Attributes } = await rt.db.send(
    new UpdateItem({
      TableName: rt.table,
      Key: keys.feedback(sessionId, feedback.messageId),
      UpdateExpression: `SET #type = :type, messageId = :m, rating = :r, reasons = :rs, userId = :u, updatedAt = :at, createdAt = if_not_exists(createdAt, :at)${
        comment ? ', #comment = :c' : ' REMOVE #comment'
      }`,
      ExpressionAttributeNames: { '#type': 'type', '#comment': 'comment' },
      ExpressionAttributeValues: {
        ':type': 'feedback',
        ':m': feedback.messageId,
        ':r': feedback.rating,
        ':rs': feedback.reasons,
        ':u': feedback.userId,
        ':at': feedback.updatedAt,
        ...(comment && { ':c': feedback.comment }),
      },
      ReturnValues: 'ALL_OLD',
    }),
  );
  const previous = Attributes ? recordOf(Attributes) : undefined;
  return { stored: { ...feedback, createdAt: previous?.createdAt ?? feedback.updatedAt }, previous };
}

/** Every rating of a session's messages, by message id. */
export async function listFeedback(rt: Runtime, sessionId: string): Promise<Map<string, FeedbackRecord>> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':prefix': prefixes.feedback },
    ConsistentRead: true,
  });
  return new Map(items.map((item) => [String(item.messageId), recordOf(item)]));
}

function recordOf(item: Record<string, unknown>): FeedbackRecord {
  const { type: _type, ...rest } = strip(item);
  return rest as unknown as FeedbackRecord;
}
