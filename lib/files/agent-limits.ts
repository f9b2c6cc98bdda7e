import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostAgentRegistration } from '../contract/index.ts';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/index.ts';
import type { AttachedFile } from './session-quota.ts';

/** Whether `mediaType` is within one of `ranges`: `type/subtype`, `type/*`, or the range of every type. */
export function acceptsType(ranges: readonly string[], mediaType: string): boolean {
  const [type] = mediaType.split('/');
  return ranges.some((range) => {
    const r = range.toLowerCase();
    return r === '*/*' || r === mediaType || r === `${type}/*`;
  });
}

/**
 * Checks the files a message attaches against its agent's `files` settings: one over `maxBytes` is
 * `413 file_too_large`, one of a type outside `mediaTypes` is `415 unsupported_media_type`, each at
 * the attachment's `file_id`. Checked before anything of the message is stored.
 */
export function checkAgentFiles(agent: HostAgentRegistration, attached: readonly AttachedFile[]): void {
  const settings = agent.definition.files;
  if (!settings) return;
  for (const { file, path } of attached) {
    if (settings.maxBytes !== undefined && file.size > settings.maxBytes) {
      throw new PayloadTooLargeError(
        'file_too_large',
        `File "${file.name}" is ${file.size} bytes; agent "${agent.id}" takes files of at most ${settings.maxBytes} bytes.`,
        [{ path, message: `at most ${settings.maxBytes} bytes for agent "${agent.id}"` }],
      );
    }
    if (settings.mediaTypes && !acceptsType(settings.mediaTypes, file.mediaType)) {
      throw new UnsupportedMediaTypeError(
        `File "${file.name}" is ${file.mediaType}; agent "${agent.id}" accepts ${settings.mediaTypes.join(', ')}.`,
        [{ path, message: `${file.mediaType} is not accepted by agent "${agent.id}"` }],
      );
    }
  }
}

/**
 * What `POST /api/files` accepts: `files.maxBytes`, or more when an agent registered at start-up
 * takes larger files. A per-request agent cannot raise it (the seed's "derived from the agents
 * registered at startup only"): set `files.maxBytes` for it.
 */
export function uploadLimit(rt: Runtime, app: Switchboard): number {
  return Math.max(
    rt.settings.files.maxBytes,
    ...app.registered().map((a) => a.definition.files?.maxBytes ?? 0),
  );
}
