import { z } from 'zod';

/** What the API puts on the turns queue: ids only; everything else is in the table. */
export const TurnJobSchema = z.object({
  v: z.literal(1),
  kind: z.literal('turn'),
  sessionId: z.string(),
  runId: z.string(),
  requestId: z.string(),
});
export type TurnJob = z.infer<typeof TurnJobSchema>;
