import type { Writable } from 'node:stream';
import type { ResponseSink } from './types.ts';

/**
 * The Lambda response stream of a function URL (`awslambda.streamifyResponse`) as a sink: the status
 * and headers go first, through `awslambda.HttpResponseStream.from`, then the body. A client that
 * goes away does not stop the function; a failed write marks the sink closed, and the stream stops.
 */
export function lambdaSink(responseStream: Writable): ResponseSink {
  let stream: Writable | undefined;
  let closed = false;
  const close = () => {
    closed = true;
  };
  return {
    start(statusCode, headers) {
      stream = awslambda.HttpResponseStream.from(responseStream, { statusCode, headers });
      stream.on('error', close);
      stream.on('close', close);
    },
    write(chunk) {
      stream?.write(chunk);
    },
    end() {
      stream?.end();
      close();
    },
    get closed() {
      return closed;
    },
  };
}
