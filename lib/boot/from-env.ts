import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { type FunctionName, parseSettings, type Runtime, type Settings } from '../config/index.ts';
import { ExportProcessor, traceExportFromEnv } from '../telemetry/export.ts';
import { createRuntime } from './create-runtime.ts';

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set.`);
  return value;
}

/**
 * The deployment's settings: the file `SWITCHBOARD_SETTINGS_FILE` names (relative to the function's
 * root, `LAMBDA_TASK_ROOT`; what the construct deploys), or else SWITCHBOARD_SETTINGS as JSON.
 */
function baseSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const file = env.SWITCHBOARD_SETTINGS_FILE?.trim();
  if (file) {
    const path = isAbsolute(file) ? file : join(env.LAMBDA_TASK_ROOT ?? process.cwd(), file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`SWITCHBOARD_SETTINGS_FILE: ${path} cannot be read (${(error as Error).message}).`);
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`SWITCHBOARD_SETTINGS_FILE: ${path} is not valid JSON.`);
    }
  }
  if (!env.SWITCHBOARD_SETTINGS?.trim()) return {};
  try {
    return JSON.parse(env.SWITCHBOARD_SETTINGS) as Record<string, unknown>;
  } catch {
    throw new Error('SWITCHBOARD_SETTINGS is not valid JSON.');
  }
}

/**
 * The deployment's settings (see baseSettings), with the seed's tool variables (TOOLS__HOST_TOOLS, TOOLS__PAGE_SCOPES,
 * JSON) laid over it when they are set.
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Settings {
  const fromEnv = (name: string) => {
    try {
      return JSON.parse(env[name] as string) as unknown;
    } catch {
      throw new Error(`${name} is not valid JSON.`);
    }
  };
  const base = baseSettings(env);
  const tools = { ...(base.tools as Record<string, unknown> | undefined) };
  if (env.TOOLS__HOST_TOOLS) tools.hostTools = fromEnv('TOOLS__HOST_TOOLS');
  if (env.TOOLS__PAGE_SCOPES) tools.pageScopes = fromEnv('TOOLS__PAGE_SCOPES');
  return parseSettings({ ...base, ...(Object.keys(tools).length > 0 && { tools }) });
}

/**
 * The functions whose invocation ends after its spans are exported: no host waits on them. The API
 * functions' spans leave in the background (docs/performance.md, "Trace export").
 */
const FLUSH_AT_INVOCATION_END: readonly FunctionName[] = ['worker', 'sweep'];

/** The runtime a Lambda function builds from its environment (set by the CDK construct). */
export function runtimeFromEnv(fn: FunctionName, env: NodeJS.ProcessEnv = process.env): Runtime {
  // Where spans go (SWITCHBOARD_TRACES_*): a processor that loads the exporter with the first span.
  const exported = traceExportFromEnv(env, FLUSH_AT_INVOCATION_END.includes(fn) ? 'invocation' : 'batch');
  const secret = (secretId: string) => rt.secret(secretId);
  const rt = createRuntime({
    fn,
    table: required(env, 'SWITCHBOARD_TABLE'),
    queueUrl: required(env, 'SWITCHBOARD_QUEUE_URL'),
    bucket: env.SWITCHBOARD_BUCKET ?? '',
    wsEndpoint: env.SWITCHBOARD_WS_ENDPOINT,
    eventBus: env.SWITCHBOARD_EVENT_BUS,
    settings: settingsFromEnv(env),
    region: env.AWS_REGION,
    logLevel: env.LOG_LEVEL,
    service: env.POWERTOOLS_SERVICE_NAME || undefined,
    metricsNamespace: env.POWERTOOLS_METRICS_NAMESPACE || undefined,
    tracing: env.SWITCHBOARD_TRACING === 'true',
    refKeySecret: env.SWITCHBOARD_REF_KEY_SECRET,
    ...(exported && {
      traces: { processors: [new ExportProcessor(exported, { secret })], sampleRatio: exported.sampleRatio },
    }),
  });
  return rt;
}
