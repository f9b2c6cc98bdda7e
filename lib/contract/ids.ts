import { z } from 'zod';

/**
 * The one rule for every id a caller names that becomes part of a table key (session ids, action
 * and tool call ids, file ids): 1-128 letters, digits, "_", ".", ":" or "-", starting with a letter
 * or a digit. Well inside DynamoDB's key limits (2,048 bytes of partition key, 1,024 of sort key),
 * and safe in a URL path as it is.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export const ID_RULE = 'must be 1-128 letters, digits, "_", ".", ":" or "-", starting with a letter or digit';

/** An id that reaches a key; see {@link ID_PATTERN}. */
export const IdSchema = z.string().regex(ID_PATTERN, ID_RULE);

/** Whether `id` can name anything at all: an id that breaks the rule is never stored. */
export const isId = (id: string): boolean => ID_PATTERN.test(id);
