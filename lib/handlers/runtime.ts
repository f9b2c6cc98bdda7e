import { runtimeFromEnv } from '../boot/index.ts';
import type { FunctionName, Runtime } from '../config/index.ts';

/**
 * The runtime a handler uses: the one it was given (the sandbox, tests), else one built from the
 * environment (as function `fn`) on first use and kept for the life of the Lambda execution environment.
 */
export function lazyRuntime(fn: FunctionName, given?: Runtime): () => Runtime {
  let runtime = given;
  return () => {
    runtime ??= runtimeFromEnv(fn);
    return runtime;
  };
}
