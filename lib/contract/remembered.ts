import * as z from 'zod';

/**
 * A remembered tool's name in a path (`DELETE /api/sessions/{id}/remembered-tools/{name}`): the
 * name an approval of it carried (`toolName`). One that names no remembered tool is `404
 * tool_not_remembered`.
 */
export const RememberedToolNameSchema = z.string().min(1).meta({
  description: "The tool's name, as `GET /api/sessions/{id}/remembered-tools` lists it (percent-encoded).",
});

/** `200` of `GET /api/sessions/{id}/remembered-tools`: the tools whose calls run without asking in the session. */
export const RememberedToolsSchema = z
  .object({
    session_id: z.string(),
    tools: z.array(
      z
        .object({
          /** The tool's name, as its approval named it. */
          name: z.string(),
          /** When the approval that remembered it was recorded (ISO 8601). */
          remembered_at: z.string(),
          /** Who answered that approval. */
          actor: z.string(),
        })
        .strict(),
    ),
  })
  .strict();
export type RememberedTools = z.infer<typeof RememberedToolsSchema>;
