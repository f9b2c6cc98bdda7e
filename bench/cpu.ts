/**
 * Where a phase of the bench spends its process's CPU: a sampling CPU profile (the inspector's
 * Profiler, in this process) with each sample's time given to the code it was in. The sandbox runs
 * the functions and their emulators in one process, so wall-clock figures under load measure the
 * emulators as much as Switchboard; the runtime's own share is what Lambda would run.
 */
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

/** Who a sample's time belongs to. */
export type CpuOwner = 'runtime' | 'sandbox' | 'bench' | 'other';

/** CPU milliseconds per owner, and the whole (idle time excluded). */
export type CpuShares = Record<CpuOwner, number> & { total: number };

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The packages Switchboard's functions run (bundled into them): their time is the runtime's. Any
 * other package is the sandbox's (dynalite, fauxqs, ws, the level stores…) or the bench's.
 */
const RUNTIME_PACKAGES =
  /^(@aws-sdk|@smithy|@aws-crypto|@aws-lambda-powertools|@middy|zod|ajv|ajv-formats|fast-uri|jose|mnemonist|obliterator|tslib|bowser|uuid|fast-xml-parser|strnum)$/;

/** The owner of a script by its URL; undefined for none (native code, Node's own modules). */
function ownerOf(url: string): CpuOwner | undefined {
  if (!url || url.startsWith('node:')) return undefined;
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (pkg) {
    if (RUNTIME_PACKAGES.test(pkg.split('/')[0] ?? '') || RUNTIME_PACKAGES.test(pkg)) return 'runtime';
    return 'sandbox';
  }
  if (!path.startsWith(ROOT)) return undefined;
  const top = path.slice(ROOT.length).split('/')[0];
  if (top === 'lib' || top === 'functions' || top === 'demo') return 'runtime';
  if (top === 'sandbox') return 'sandbox';
  return 'bench';
}

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

/** The CPU of a finished profile by owner: native frames count for the nearest caller that has one. */
function sharesOf(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }): CpuShares {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const owners = new Map<number, CpuOwner | 'idle'>();
  const owner = (id: number): CpuOwner | 'idle' => {
    const known = owners.get(id);
    if (known) return known;
    const node = byId.get(id);
    let found: CpuOwner | 'idle' = 'other';
    if (node?.callFrame.functionName === '(idle)') found = 'idle';
    else {
      const own = node && ownerOf(node.callFrame.url);
      const up = parent.get(id);
      found = own ?? (up === undefined ? 'other' : owner(up));
    }
    owners.set(id, found);
    return found;
  };
  const shares: CpuShares = { runtime: 0, sandbox: 0, bench: 0, other: 0, total: 0 };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i += 1) {
    // A sample's delta is the time since the one before: it is spent where this one was taken.
    const ms = (deltas[i] ?? 0) / 1000;
    const who = owner(samples[i] ?? 0);
    if (who === 'idle') continue;
    shares[who] += ms;
    shares.total += ms;
  }
  return shares;
}

/** Runs `phase` under the CPU profiler and returns its result with the CPU it took, by owner. */
export async function profiled<T>(phase: () => Promise<T>): Promise<{ result: T; cpu: CpuShares }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 1000 });
    await session.post('Profiler.start');
    const outcome = await phase().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const { profile } = await session.post('Profiler.stop');
    if ('error' in outcome) throw outcome.error;
    return { result: outcome.value, cpu: sharesOf(profile as Parameters<typeof sharesOf>[0]) };
  } finally {
    session.disconnect();
  }
}
