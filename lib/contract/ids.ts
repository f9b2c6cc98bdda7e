import * as z from 'zod';

/**
 * The one rule for every id a caller names that becomes part of a table key (session ids, action
 * and tool call ids, file ids): 1-128 letters, digits, "_", ".", ":" or "-", starting with a letter
 * or a digit. Well inside DynamoDB's key limits (2,048 bytes of partition key, 1,024 of sort key),
 * and safe in a URL path as it is.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** A session ref's owner scope and separator: 32 characters of base64url, then `~`. */
export const SESSION_REF_SCOPE = '[A-Za-z0-9_-]{32}~';

export const ID_RULE = 'must be 1-128 letters, digits, "_", ".", ":" or "-", starting with a letter or digit';

/** An id that reaches a key; see {@link ID_PATTERN}. */
export const IdSchema = z.string().regex(ID_PATTERN, ID_RULE);

/** Whether `id` can name anything at all: an id that breaks the rule is never stored. */
export const isId = (id: string): boolean => ID_PATTERN.test(id);

/**
 * A session id: a host's own id under the one id rule, or a session ref (`<32-character owner
 * scope>~<id>`), by which a caller other than the owner names a session (see lib/auth/session-ref.ts).
 */
export const SESSION_ID_PATTERN = new RegExp(`^(?:${SESSION_REF_SCOPE})?${ID_PATTERN.source.slice(1)}`);

export const SESSION_ID_RULE = `${ID_RULE}, or a session ref`;

/** A session id or ref; see {@link SESSION_ID_PATTERN}. */
export const SessionIdSchema = z.string().regex(SESSION_ID_PATTERN, SESSION_ID_RULE);

export const isSessionId = (id: string): boolean => SESSION_ID_PATTERN.test(id);
