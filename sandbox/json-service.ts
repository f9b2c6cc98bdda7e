import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loopbackOnly } from './host-check.ts';

/** The content type of AWS's JSON 1.1 protocol (EventBridge, Secrets Manager). */
const JSON_1_1 = 'application/x-amz-json-1.1';

/**
 * Answers as an AWS JSON 1.1 service does: the body, or with `errorType` an error of that type
 * (`__type`, the message under `messageKey`: EventBridge says `message`, Secrets Manager `Message`;
 * the SDK reads either).
 */
export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  errorType?: string,
  messageKey: 'message' | 'Message' = 'message',
): void {
  res
    .writeHead(status, {
      'content-type': JSON_1_1,
      'x-amzn-requestid': randomUUID(),
      ...(errorType && { 'x-amzn-errortype': errorType }),
    })
    .end(
      JSON.stringify(
        errorType ? { __type: errorType, [messageKey]: (body as { message: string }).message } : body,
      ),
    );
}

/** A local JSON 1.1 service on a free loopback port. */
export interface JsonService {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `serve` on a free loopback port; a request it fails on is answered as the service's own
 * internal error (`internalError`, e.g. `InternalException`), as AWS answers one.
 */
export async function startJsonService(
  serve: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  internalError: string,
): Promise<JsonService> {
  const server = loopbackOnly(
    createServer((req, res) => {
      serve(req, res).catch((error: unknown) => {
        if (!res.headersSent) answerJson(res, 500, { message: String(error) }, internalError);
        else res.end();
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
