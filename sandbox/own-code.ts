import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Switchboard's own directories (beside this file's, from the sources or the build), each ending in
 * the path separator: frames in them are not an agent's (the readable log), and modules in them are
 * never reloaded (the agents module's reload keeps one copy of the runtime).
 */
export const OWN_DIRS: readonly string[] = ['lib', 'sandbox', 'bin', 'functions', 'client', 'infra'].map(
  (dir) => `${resolve(dirname(fileURLToPath(import.meta.url)), '..', dir)}${sep}`,
);
