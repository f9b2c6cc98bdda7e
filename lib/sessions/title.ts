/** How many characters of its first message name a session in a list (`title` of `GET /api/sessions`). */
export const SESSION_TITLE_LENGTH = 80;

/**
 * A session's title: the first message, its whitespace folded, cut at `SESSION_TITLE_LENGTH`
 * characters (whole code points, with `…` when cut); undefined for a message of files alone.
 */
export function sessionTitle(content: string): string | undefined {
  const folded = content.replace(/\s+/g, ' ').trim();
  if (!folded) return undefined;
  const points = [...folded];
  return points.length <= SESSION_TITLE_LENGTH
    ? folded
    : `${points
        .slice(0, SESSION_TITLE_LENGTH - 1)
        .join('')
        .trimEnd()}…`;
}
