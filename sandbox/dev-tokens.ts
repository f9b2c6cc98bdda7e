import { mintDevToken } from './dev-key.ts';

/** Who `switchboard dev --user` makes tokens for, and for how long. */
export interface DevTokensOptions {
  users: string[];
  tenant?: string;
  ttlSeconds: number;
  /** The sandbox's base URL (the HTTP API is under `/api`) and its WebSocket URL. */
  url: string;
  wsUrl: string;
}

/** A duration as a person says it: 1h, 90m, 2d. */
function spoken(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

/**
 * What `switchboard dev --user NAME` prints at start-up: a token of the development key for each
 * user, and a request of each API made with it, ready to paste.
 */
export async function devTokensText(options: DevTokensOptions): Promise<string> {
  const lines = [
    `Tokens of the development key (valid ${spoken(options.ttlSeconds)}${options.tenant ? `, tenant ${options.tenant}` : ''}):`,
  ];
  for (const user of options.users) {
    const token = await mintDevToken({ user, tenant: options.tenant, ttlSeconds: options.ttlSeconds });
    lines.push(
      `  ${user}: ${token}`,
      `    curl -H 'Authorization: Bearer ${token}' ${options.url}/api/sessions`,
      `    wscat -c '${options.wsUrl}?token=${token}'`,
    );
  }
  return lines.join('\n');
}
