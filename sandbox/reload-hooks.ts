/**
 * Module hooks (`module.register`) that let `switchboard dev` load an agents module again after it
 * changed. Node keeps an ES module for the life of the process, keyed by its URL, so each load
 * imports the agents module under a new URL (`?switchboard-reload=N`), and these hooks give every
 * local file it imports, directly or not, the same query: the whole of the developer's code is
 * evaluated afresh. Dependencies (node_modules) and Switchboard's own code keep their one instance,
 * so the reloaded agents are served by the running runtime's classes. Each such file's URL is posted
 * back on the port, for the dev command to watch.
 *
 * Why not tsx's `tsImport`, whose namespaces also load a module afresh: a namespace reaches every
 * module the load imports, Switchboard's own included, so the reloaded module's `Switchboard` is
 * another class than the runtime's (and its errors other classes than those the runtime checks for).
 */
import type { MessagePort } from 'node:worker_threads';

/** What the dev command registers the hooks with. */
export interface ReloadHooksData {
  /** Where the files it learns of are posted. */
  port: MessagePort;
  /** Directories (with a trailing separator, as file URLs) whose files are never reloaded: Switchboard's own. */
  keep: string[];
}

/** The query that marks a module of one load. */
export const RELOAD_PARAM = 'switchboard-reload';

let data: ReloadHooksData | undefined;

/** Called by Node when the hooks are registered. */
export function initialize(given: ReloadHooksData): void {
  data = given;
}

type ResolveResult = { url: string; format?: string | null; shortCircuit?: boolean };
type NextResolve = (specifier: string, context: { parentURL?: string }) => Promise<ResolveResult>;

/** The load a module's URL belongs to, or undefined for a module outside every load. */
function loadOf(url: string | undefined): string | undefined {
  if (!url?.startsWith('file:')) return undefined;
  return new URL(url).searchParams.get(RELOAD_PARAM) ?? undefined;
}

/** A file of the developer's: reloaded with the module that imports it. */
function isLocal(url: string): boolean {
  if (!url.startsWith('file:') || url.includes('/node_modules/')) return false;
  return !(data?.keep ?? []).some((dir) => url.startsWith(dir));
}

/** Resolves as before, then puts the importer's load on a local file that has no query of its own. */
export async function resolve(
  specifier: string,
  context: { parentURL?: string },
  nextResolve: NextResolve,
): Promise<ResolveResult> {
  const result = await nextResolve(specifier, context);
  const load = loadOf(context.parentURL) ?? loadOf(result.url);
  if (load === undefined || !isLocal(result.url)) return result;
  const url = new URL(result.url);
  if (!url.searchParams.has(RELOAD_PARAM)) {
    if (url.search !== '') return result;
    url.searchParams.set(RELOAD_PARAM, load);
  }
  data?.port.postMessage(`file://${url.host}${url.pathname}`);
  return { ...result, url: url.href };
}
