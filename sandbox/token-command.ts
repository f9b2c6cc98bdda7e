import { parseArgs } from 'node:util';
import { DEV_AUDIENCE, mintDevToken } from './dev-key.ts';

/** What `switchboard token` prints for `--help`. */
export const TOKEN_USAGE = `Usage: switchboard token --user NAME [--tenant NAME] [--ttl 1h] [--audience ${DEV_AUDIENCE}]

Prints a JWT signed with the sandbox's development key, which \`switchboard dev\` (\`npm start\`) accepts. For local use only.

  --user      the token's subject (sub): who the caller is
  --tenant    the caller's tenant (the tenant claim)
  --ttl       how long the token is valid: seconds, or a number with s, m, h or d (default 1h, at most 30d)
  --audience  the aud claim (default ${DEV_AUDIENCE}, what the sandbox accepts)`;

/** A command-line mistake: its message is printed with the usage, and the exit code is 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage = TOKEN_USAGE,
  ) {
    super(message);
  }
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const MAX_TTL_SECONDS = 30 * 86_400;

/** Parses `--ttl`: `90`, `90s`, `15m`, `1h`, `2d`. */
export function parseTtl(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * (UNITS[match[2] || 's'] ?? 1) : Number.NaN;
  if (!(seconds > 0 && seconds <= MAX_TTL_SECONDS)) {
    throw new UsageError(
      `--ttl must be a positive duration of at most 30d, like 3600, 15m or 1h (got "${text}").`,
    );
  }
  return seconds;
}

/** Runs `switchboard token` with its arguments (after `token`) and returns the token. */
export async function tokenCommand(args: string[]): Promise<string> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        user: { type: 'string' },
        tenant: { type: 'string' },
        ttl: { type: 'string', default: '1h' },
        audience: { type: 'string', default: DEV_AUDIENCE },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const user = String(values.user ?? '').trim();
  if (!user) throw new UsageError('--user is required: who the token is for.');
  const tenant = values.tenant === undefined ? undefined : String(values.tenant).trim();
  if (tenant === '') throw new UsageError('--tenant must not be empty when given.');
  const audience = String(values.audience).trim();
  if (!audience) throw new UsageError('--audience must not be empty.');
  return mintDevToken({ user, tenant, audience, ttlSeconds: parseTtl(String(values.ttl)) });
}
