import type { FeedbackRecord } from '../store/index.ts';

/** A rating as messages show it (`feedback` on a rated answer). */
export function feedbackView(feedback: FeedbackRecord) {
  return {
    rating: feedback.rating,
    reasons: feedback.reasons ?? [],
    ...(feedback.comment !== undefined && { comment: feedback.comment }),
    created_at: feedback.createdAt,
    updated_at: feedback.updatedAt,
  };
}
