/**
 * The agents module `switchboard dev` serves: loaded once, and again whenever it or a local file it
 * imports changes (see reload-hooks.ts for how an ES module is loaded afresh).
 */
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { register } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Switchboard } from '../lib/agents/index.ts';
import { jsonSchemasReady } from '../lib/contract/index.ts';
import { OWN_DIRS } from './own-code.ts';
import { RELOAD_PARAM, type ReloadHooksData } from './reload-hooks.ts';

/** What a change leads to: the new server, or why the new code could not be loaded. */
export interface ReloadListener {
  reloaded(app: Switchboard): void;
  failed(error: unknown): void;
}

/** An agents module, loaded. */
export interface AgentsModule {
  /** The absolute path of the module. */
  readonly path: string;
  /** The server its default export is (the latest that loaded). */
  readonly app: Switchboard;
  /**
   * Loads the module again when it or a local file it imports changes, and tells `listener`. A
   * change shortly after another is part of it (an editor's save is several writes).
   */
  watch(listener: ReloadListener): void;
  /** Stops watching. */
  close(): void;
}

/** Options of {@link loadAgentsModule}. */
export interface LoadOptions {
  /** Load it so that it can be reloaded (a query on its URL and on its local imports). Default false. */
  reloadable?: boolean;
  /** How long after the last change the module is loaded again. Default 100 ms. */
  settleMs?: number;
}

/** Switchboard's own directories, as URLs: never reloaded, so the runtime keeps one copy. */
const KEEP = OWN_DIRS.map((dir) => pathToFileURL(dir).href);
const HOOKS = [
  new URL('./reload-hooks.js', import.meta.url),
  new URL('./reload-hooks.ts', import.meta.url),
].find((url) => existsSync(fileURLToPath(url))) as URL;

/** The hooks' port, registered once per process; each load of any module has its own number. */
let files: MessagePort | undefined;
let loads = 0;

function hooksPort(): MessagePort {
  if (files) return files;
  const { port1, port2 } = new MessageChannel();
  const data: ReloadHooksData = { port: port2, keep: KEEP };
  register(HOOKS, { parentURL: import.meta.url, data, transferList: [port2] });
  // The port must not keep the process alive once the sandbox has stopped.
  port1.unref();
  files = port1;
  return port1;
}

/** Lets Node load TypeScript (through tsx, a dependency) when it is not already running under a loader. */
export async function typescriptLoader(path: string): Promise<void> {
  if (/\.[cm]?tsx?$/.test(path) && !import.meta.url.endsWith('.ts')) {
    const { register: registerTsx } = await import('tsx/esm/api');
    registerTsx();
  }
}

/** Imports `url` and checks its default export. */
async function importServer(url: string, file: string): Promise<Switchboard> {
  const module = (await import(url)) as { default?: unknown };
  if (!(module.default instanceof Switchboard)) {
    throw new Error(
      `${file} must export a Switchboard server (createSwitchboard() from 'switchboard') as its default.`,
    );
  }
  return module.default;
}

/**
 * Loads an agents module: its default export must be a Switchboard server. A `.ts` module is loaded
 * with tsx. With `reloadable`, {@link AgentsModule.watch} can load it again after a change.
 */
export async function loadAgentsModule(file: string, options: LoadOptions = {}): Promise<AgentsModule> {
  // Loaded first, so that a JSON Schema ajv cannot use fails where the agents module registers it.
  await jsonSchemasReady();
  const path = resolve(file);
  await typescriptLoader(path);
  const href = pathToFileURL(path).href;
  // The files of this module's loads, as the hooks report them: what is watched.
  const known = new Set<string>([path]);
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let listener: ReloadListener | undefined;
  const onFile = (url: unknown) => {
    if (typeof url !== 'string') return;
    known.add(fileURLToPath(url));
    watchKnown();
  };
  if (options.reloadable) {
    const port = hooksPort();
    port.on('message', onFile);
    // A listener refs the port again: it must not keep the process alive on its own.
    port.unref();
  }
  const load = () => {
    loads += 1;
    return importServer(options.reloadable ? `${href}?${RELOAD_PARAM}=${loads}` : href, file);
  };
  let app = await load();
  // A change during a reload starts another: only the latest one started has the last word.
  let latest = 0;
  const reload = () => {
    const mine = ++latest;
    load().then(
      (fresh) => {
        if (mine !== latest) return;
        app = fresh;
        listener?.reloaded(fresh);
        watchKnown();
      },
      (error: unknown) => {
        if (mine !== latest) return;
        listener?.failed(error);
        watchKnown();
      },
    );
  };
  const changed = (dir: string, name: string | null) => {
    if (name === null || !known.has(resolve(dir, name))) return;
    clearTimeout(timer);
    timer = setTimeout(reload, options.settleMs ?? 100);
  };
  // A directory is watched rather than each file: an editor that saves by renaming replaces the file.
  // node:fs's watch is enough for a handful of known files (no watcher library is needed): the
  // directories are few and an event for any other file in them is ignored.
  function watchKnown() {
    if (!listener) return;
    for (const dir of new Set([...known].map((f) => dirname(f)))) {
      if (watchers.has(dir)) continue;
      const watcher = watch(dir, (_event, name) => changed(dir, name));
      watcher.on('error', () => watchers.delete(dir));
      watchers.set(dir, watcher);
    }
  }
  return {
    path,
    get app() {
      return app;
    },
    watch(given) {
      if (!options.reloadable) throw new Error(`${basename(path)} was not loaded to be reloaded.`);
      listener = given;
      watchKnown();
    },
    close() {
      clearTimeout(timer);
      listener = undefined;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      if (options.reloadable) files?.off('message', onFile);
    },
  };
}
