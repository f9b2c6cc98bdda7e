/**
 * The model `switchboard dev` gives the agents: the sandbox's scripted model (the default when no
 * OPENAI_API_KEY is set), or a real OpenAI-compatible endpoint. The agents find it in the environment,
 * set before their module loads: SWITCHBOARD_MODEL_BASE_URL and SWITCHBOARD_MODEL_API_KEY.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { typescriptLoader } from './agents-module.ts';
import { checkScript, type ModelScript, type ScriptedModel, startScriptedModel } from './model/index.ts';
import { UsageError } from './token-command.ts';

/** Where OpenAI's API is: the real endpoint's default. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The command line's model options. */
export interface ModelOptions {
  model?: string;
  'model-base-url'?: string;
  'model-script'?: string;
}

/** What the agents are given. */
export type ModelChoice =
  | { kind: 'scripted'; script?: string }
  | { kind: 'endpoint'; baseURL: string; apiKey?: string; scriptNotUsed?: string };

/** The model the options and the environment choose; a contradiction is a {@link UsageError}. */
export function chooseModel(values: ModelOptions, env: NodeJS.ProcessEnv, usage: string): ModelChoice {
  const key = env.OPENAI_API_KEY || undefined;
  const baseURL = values['model-base-url'];
  const kind = values.model ?? (key !== undefined || baseURL !== undefined ? 'endpoint' : 'scripted');
  if (kind !== 'scripted' && kind !== 'endpoint')
    throw new UsageError(`--model takes scripted or endpoint (got "${kind}").`, usage);
  if (kind === 'scripted') {
    if (baseURL !== undefined)
      throw new UsageError(
        '--model-base-url names a real endpoint, and --model scripted is the sandbox’s: give one.',
        usage,
      );
    return { kind, ...(values['model-script'] !== undefined && { script: values['model-script'] }) };
  }
  // A script given beside a key alone (as `npm run start:model` gives one) is for when there is no key.
  const implicit = values.model === undefined && baseURL === undefined;
  if (values['model-script'] !== undefined && !implicit)
    throw new UsageError(
      '--model-script is for the scripted model, and the model is a real endpoint here.',
      usage,
    );
  const url = baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_BASE_URL;
  if (!/^https?:\/\/\S+$/.test(url))
    throw new UsageError(`--model-base-url must be an http(s) URL (got "${url}").`, usage);
  if (key === undefined && baseURL === undefined)
    throw new UsageError(
      '--model endpoint needs OPENAI_API_KEY (or --model-base-url for an endpoint that takes no key).',
      usage,
    );
  return {
    kind,
    baseURL: url.replace(/\/$/, ''),
    ...(key !== undefined && { apiKey: key }),
    ...(values['model-script'] !== undefined && { scriptNotUsed: values['model-script'] }),
  };
}

/** How many times a script module was imported: each import after a change is a new URL. */
let imports = 0;

/** Reads a script: a JSON file, or a module (`.ts` too) whose default export is the script. */
async function loadScript(path: string): Promise<ModelScript> {
  let script: unknown;
  if (extname(path) === '.json') script = JSON.parse(readFileSync(path, 'utf8'));
  else {
    await typescriptLoader(path);
    const url = `${pathToFileURL(path).href}?script=${++imports}`;
    script = ((await import(url)) as { default?: unknown }).default;
  }
  return checkScript(script) as ModelScript;
}

/** Reads `--model-script`; a file that is not there, or not a script, is a {@link UsageError}. */
export async function readModelScript(file: string, usage: string): Promise<ModelScript> {
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`--model-script: ${file} does not exist.`, usage);
  try {
    return await loadScript(path);
  } catch (error) {
    throw new UsageError(`--model-script: ${file}: ${(error as Error).message}`, usage);
  }
}

/** The model, started if it is the scripted one, with the line the start-up banner prints about it. */
export interface DevModel {
  line: string;
  scripted?: ScriptedModel;
  /**
   * Reads the script again whenever its file changes (a change shortly after another is part of it)
   * and says so, or why the new one is not taken (the old one keeps answering).
   */
  watch(): void;
  close(): Promise<void>;
}

/** How long after the script's last change it is read again. */
const SETTLE_MS = 100;

/**
 * Starts the scripted model (with a key of its own, which the agents are given) or points the agents
 * at the endpoint: SWITCHBOARD_MODEL_BASE_URL and SWITCHBOARD_MODEL_API_KEY are set in this process's
 * environment, which the agents module and the worker read. The key is never printed.
 */
export async function startDevModel(
  choice: ModelChoice,
  usage: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DevModel> {
  if (choice.kind === 'endpoint') {
    env.SWITCHBOARD_MODEL_BASE_URL = choice.baseURL;
    if (choice.apiKey !== undefined) env.SWITCHBOARD_MODEL_API_KEY = choice.apiKey;
    else delete env.SWITCHBOARD_MODEL_API_KEY;
    return {
      line: `${choice.baseURL}, ${choice.apiKey !== undefined ? 'with the key in OPENAI_API_KEY' : 'with no key'}${
        choice.scriptNotUsed !== undefined
          ? ` (${choice.scriptNotUsed} is for the scripted model: not used)`
          : ''
      }`,
      watch: () => undefined,
      close: async () => undefined,
    };
  }
  const script = choice.script === undefined ? undefined : await readModelScript(choice.script, usage);
  const apiKey = `sk-sandbox-${randomBytes(16).toString('hex')}`;
  const scripted = await startScriptedModel({
    ...(script && { script }),
    apiKey,
    onScriptError: (message) => console.error(message),
  });
  env.SWITCHBOARD_MODEL_BASE_URL = scripted.baseURL;
  env.SWITCHBOARD_MODEL_API_KEY = apiKey;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  const file = choice.script;
  const reload = (path: string) => {
    loadScript(path).then(
      (fresh) => {
        scripted.setScript(fresh);
        console.log(`Reloaded the model script from ${file}`);
      },
      (error: unknown) =>
        console.error(
          `Could not reload the model script from ${file}; the script loaded before keeps answering.\n${(error as Error).message}`,
        ),
    );
  };
  return {
    line: `scripted, ${scripted.baseURL} (script: ${file ?? 'none, every prompt gets the default reply'})`,
    scripted,
    watch() {
      if (file === undefined || watcher) return;
      const path = resolve(file);
      // Its directory is watched: an editor that saves by renaming replaces the file.
      watcher = watch(dirname(path), (_event, name) => {
        if (name !== basename(path)) return;
        clearTimeout(timer);
        timer = setTimeout(() => reload(path), SETTLE_MS);
      });
    },
    async close() {
      clearTimeout(timer);
      watcher?.close();
      await scripted.close();
    },
  };
}
