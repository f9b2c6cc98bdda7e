import { AwsJsonClient, type AwsJsonClientConfig } from '../json-client.ts';
import { toJson } from '../wire.ts';
import type { AnyTableCommand, Plain } from './commands.ts';

/**
 * The table's client: the table's commands (./commands.ts) sent over
 * DynamoDB's JSON protocol by an {@link AwsJsonClient} (Signature V4, the SDK's retries and error
 * shape), not the SDK's `DynamoDBClient` with `DynamoDBDocumentClient`, which were the largest part of
 * every function's cold start. A `middlewareStack` whose `initialize` step sees every call keeps the
 * SDK's way of instrumenting a client (the bench meters requests with it, the tracer records X-Ray
 * subsegments).
 */

/** DynamoDB's JSON protocol, and the DynamoDB client's 25 ms base of the backoff. */
const DYNAMODB = {
  name: 'dynamodb',
  target: 'DynamoDB_20120810',
  jsonVersion: '1.0',
  endpointVariable: 'AWS_ENDPOINT_URL_DYNAMODB',
  baseDelayMs: 25,
} as const;

/**
 * How a {@link TableClient} reaches its table: see {@link AwsJsonClientConfig} (its endpoint defaults
 * to `AWS_ENDPOINT_URL_DYNAMODB`, then `AWS_ENDPOINT_URL`, then the region's).
 */
export type TableClientConfig = AwsJsonClientConfig;

/** What a middleware's handler takes and answers: the call's plain input, its plain output. */
export type TableHandler = (args: { input: Plain }) => Promise<{ output: Plain }>;
/** Names the call a middleware sees, as the SDK's handler context does. */
export interface TableCallContext {
  clientName: 'TableClient';
  /** `GetItemCommand`, `PutItemCommand`…: the operation with `Command`, as the SDK names it. */
  commandName: string;
}
export type TableMiddleware = (next: TableHandler, context: TableCallContext) => TableHandler;

/**
 * The part of the SDK's middleware stack that instruments calls: middleware added to the
 * `initialize` step (the only one) runs around each call, the first added outermost, and sees its
 * plain input and output, once per call whatever its retries.
 */
export class TableMiddlewareStack {
  readonly #entries: { name?: string; middleware: TableMiddleware }[] = [];
  add(middleware: TableMiddleware, options: { step?: 'initialize'; name?: string } = {}): void {
    if (options.name !== undefined && this.#entries.some((e) => e.name === options.name)) {
      throw new Error(`Duplicate middleware name '${options.name}'`);
    }
    this.#entries.push({ name: options.name, middleware });
  }
  remove(name: string): boolean {
    const at = this.#entries.findIndex((e) => e.name === name);
    if (at >= 0) this.#entries.splice(at, 1);
    return at >= 0;
  }
  resolve(handler: TableHandler, context: TableCallContext): TableHandler {
    return this.#entries.reduceRight((next, { middleware }) => middleware(next, context), handler);
  }
}

/** See the module's comment. */
export class TableClient {
  readonly middlewareStack = new TableMiddlewareStack();
  readonly #client: AwsJsonClient;

  constructor(config: TableClientConfig) {
    this.#client = new AwsJsonClient(DYNAMODB, config);
  }

  /** Sends one command, through the middleware, retrying what the SDK retries. */
  async send<C extends AnyTableCommand>(command: C): Promise<C['output']> {
    const context: TableCallContext = {
      clientName: 'TableClient',
      commandName: `${command.operation}Command`,
    };
    const handler = this.middlewareStack.resolve(async ({ input }) => {
      const wire = await this.#client.call(command.operation, toJson(command.toWire(input)));
      return { output: command.fromWire(wire) };
    }, context);
    return (await handler({ input: command.input as Plain })).output;
  }

  /** The endpoint its calls go to: the region's (FIPS and dual-stack as configured), or the one given. */
  endpoint(): Promise<string> {
    return this.#client.endpoint();
  }

  /** Closes the pooled connections. */
  destroy(): void {
    this.#client.destroy();
  }
}
