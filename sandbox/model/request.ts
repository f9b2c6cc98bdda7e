/** What both APIs' requests share: checks of the fields, the tools offered and `tool_choice`. */
import { invalidRequest } from './errors.ts';
import type { ToolChoice } from './types.ts';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A function name the endpoints accept. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The `model` field: required. */
export function modelOf(body: Json): string {
  if (typeof body.model !== 'string' || body.model === '')
    throw invalidRequest('you must provide a model parameter', 'model');
  return body.model;
}

/** A boolean field that may be absent. */
export function flag(body: Json, name: string, fallback: boolean): boolean {
  const value = body[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean')
    throw invalidRequest(
      `Invalid type for '${name}': expected a boolean, but got ${typeof value} instead.`,
      name,
    );
  return value;
}

/** The function names of `tools`, each given by `nameOf` (undefined for a tool that is no function). */
export function toolNames(body: Json, nameOf: (tool: Json) => unknown): string[] {
  const tools = body.tools;
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalidRequest("Invalid type for 'tools': expected an array.", 'tools');
  const names: string[] = [];
  tools.forEach((tool, i) => {
    if (!isObject(tool) || typeof tool.type !== 'string')
      throw invalidRequest(`Missing required parameter: 'tools[${i}].type'.`, `tools[${i}].type`);
    if (tool.type !== 'function') return;
    const name = nameOf(tool);
    if (typeof name !== 'string' || !TOOL_NAME.test(name))
      throw invalidRequest(
        `Invalid 'tools[${i}]' function name: ${JSON.stringify(name)} does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters).`,
        `tools[${i}]`,
      );
    if (names.includes(name))
      throw invalidRequest(`Invalid 'tools': duplicate function name '${name}'.`, 'tools');
    names.push(name);
  });
  return names;
}

/**
 * `tool_choice`: `none`, `auto`, `required`, a named function (`{ type: 'function', name }` or, in
 * Chat Completions, `{ type: 'function', function: { name } }`) or `allowed_tools`.
 */
export function toolChoiceOf(body: Json, tools: string[]): ToolChoice {
  const choice = body.tool_choice;
  const named = (name: unknown, where: string): string => {
    if (typeof name !== 'string' || !tools.includes(name))
      throw invalidRequest(
        `Invalid value for '${where}': no function named ${JSON.stringify(name)} in 'tools'.`,
        'tool_choice',
      );
    return name;
  };
  if (choice === undefined || choice === null) return { mode: tools.length > 0 ? 'auto' : 'none' };
  if (choice === 'none' || choice === 'auto' || choice === 'required') {
    if (choice !== 'none' && tools.length === 0)
      throw invalidRequest(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        'tool_choice',
      );
    return { mode: choice };
  }
  if (isObject(choice) && choice.type === 'function') {
    const fn = isObject(choice.function) ? choice.function.name : choice.name;
    return { mode: 'required', names: [named(fn, 'tool_choice.name')] };
  }
  if (isObject(choice) && choice.type === 'allowed_tools') {
    // Chat Completions nests them in `allowed_tools`; the Responses API does not.
    const spec = isObject(choice.allowed_tools) ? choice.allowed_tools : choice;
    const mode = spec.mode === 'required' ? 'required' : 'auto';
    const list = Array.isArray(spec.tools) ? spec.tools : [];
    const names = list.map((tool: unknown, i) => {
      const t = isObject(tool) ? tool : {};
      return named(isObject(t.function) ? t.function.name : t.name, `tool_choice.tools[${i}].name`);
    });
    return { mode, names };
  }
  throw invalidRequest(
    `Invalid value for 'tool_choice': ${JSON.stringify(choice)}. Supported values are: 'none', 'auto', 'required', a function and 'allowed_tools'.`,
    'tool_choice',
  );
}

/** A text field or a list of content parts, as text (the text parts, one per line). */
export function textOf(content: unknown, textTypes: string[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is Json => isObject(part) && textTypes.includes(String(part.type)))
    .map((part) => String(part.text ?? ''))
    .join('\n');
}

/** The content parts' types are ones the API knows (an unknown part is a 400, as on the real endpoints). */
export function checkParts(
  content: unknown,
  allowed: string[],
  where: string,
  check?: (part: Json, at: string) => void,
) {
  if (content === undefined || content === null || typeof content === 'string') return;
  if (!Array.isArray(content))
    throw invalidRequest(
      `Invalid type for '${where}': expected a string or an array of content parts.`,
      where,
    );
  content.forEach((part, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(part) || !allowed.includes(String(part.type)))
      throw invalidRequest(
        `Invalid value: ${JSON.stringify(isObject(part) ? part.type : part)}. Supported values are: ${allowed.map((a) => `'${a}'`).join(', ')}.`,
        `${at}.type`,
      );
    check?.(part, at);
  });
}

/** A data URL of base64 content, or an http(s) URL. */
export function isFileUrl(value: unknown, { http }: { http: boolean }): boolean {
  if (typeof value !== 'string') return false;
  if (/^data:[\w.+-]+\/[\w.+-]+(;[\w-]+=[\w.-]+)*;base64,[A-Za-z0-9+/=\s]*$/.test(value)) return true;
  return http && /^https?:\/\/\S+$/.test(value);
}
