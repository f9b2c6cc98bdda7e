import { createRequire } from 'node:module';

/** The parts of dynalite's (4.0.0) modules this file relies on. */
interface DynaliteError extends Error {
  body?: Record<string, unknown>;
}
type CheckConditional = (
  data: Record<string, unknown>,
  existing: unknown,
) => DynaliteError | null | undefined;
interface DynaliteDb {
  checkConditional: CheckConditional;
}
interface DynaliteValidation {
  types: Record<string, unknown>;
}

/** The writes DynamoDB answers a refused condition of with the item, when asked. */
const CONDITIONAL_WRITES = ['putItem', 'updateItem', 'deleteItem'] as const;

let installed = false;

/**
 * Makes dynalite answer a refused conditional write as DynamoDB does when the write asks for
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`: the item as it was, in the
 * ConditionalCheckFailedException's `Item` (nothing when there was no item). dynalite 4.0.0 drops
 * the parameter as unknown, so a writer that lost would get no item. The parameter is added to what
 * PutItem, UpdateItem and DeleteItem accept (with DynamoDB's values, `ALL_OLD` and `NONE`), and the
 * one check of their conditions is wrapped, once per process, before dynalite serves a request.
 */
export function installConditionCheckItems(): void {
  if (installed) return;
  installed = true;
  const load = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  for (const action of CONDITIONAL_WRITES) {
    const validation = load(`./validations/${action}`) as DynaliteValidation;
    validation.types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
  }
  const db = load('./db') as DynaliteDb;
  const check = db.checkConditional;
  db.checkConditional = (data, existing) => {
    const refused = check(data, existing);
    if (refused?.body && existing && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD')
      refused.body.Item = existing;
    return refused;
  };
}
