import type { WebSocket } from 'ws';

/** The parts of ws's (internal) Receiver the frame limit uses; see node_modules/ws/lib/receiver.js. */
interface Receiver {
  _opcode: number;
  _payloadLength: number;
  haveLength(cb: (error?: Error) => void): void;
  createError(
    ctor: ErrorConstructor | RangeErrorConstructor,
    message: string,
    prefix: boolean,
    statusCode: number,
    errorCode: string,
  ): Error;
}

function receiverOf(socket: WebSocket): Receiver {
  const receiver: unknown = Reflect.get(socket, '_receiver');
  const ok =
    typeof receiver === 'object' &&
    receiver !== null &&
    typeof Reflect.get(receiver, 'haveLength') === 'function' &&
    typeof Reflect.get(receiver, 'createError') === 'function';
  // Fail loudly if a ws upgrade moved these, rather than quietly admit frames of any size.
  if (!ok) throw new Error('ws Receiver internals changed: cannot enforce the WebSocket frame limit');
  return receiver as Receiver;
}

/**
 * Closes the connection with 1009 when a data frame's payload is over `maxFrameBytes`, as API
 * Gateway does past 32 KB per frame.
 *
 * ws itself limits only a whole message (`maxPayload`, the fragments added up). Its Receiver learns
 * a frame's payload length in `haveLength()`, right after the 7-, 16- or 64-bit length field is read
 * and before any payload byte is buffered. Wrapping that method on this socket's receiver refuses
 * the frame at that point, through the error path `maxPayload` itself takes (`createError` with
 * 1009, which makes ws close the socket with that code and emit 'error'). Control frames (opcode
 * 8 and up) are left alone: the protocol caps them at 125 bytes.
 */
export function limitFrameSize(socket: WebSocket, maxFrameBytes: number): void {
  const receiver = receiverOf(socket);
  const haveLength = receiver.haveLength;
  receiver.haveLength = function (this: Receiver, cb) {
    if (this._opcode < 0x08 && this._payloadLength > maxFrameBytes) {
      cb(
        this.createError(
          RangeError,
          'Max frame size exceeded',
          false,
          1009,
          'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
        ),
      );
      return;
    }
    haveLength.call(this, cb);
  };
}
