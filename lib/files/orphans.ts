import type { Runtime } from '../config/index.ts';
import { claimOrphanPass, deleteBlobs, finishOrphanPass, recordedFiles } from '../store/index.ts';
import { UPLOAD_URL_MARGIN_MS } from './lifecycle.ts';

/** Where uploaded files are kept: `files/<fileId>`. */
const FILES_PREFIX = 'files/';

/** Pages of the listing (1,000 keys each) one sweep reads at most; the next sweep goes on from there. */
const PAGES_PER_SWEEP = 10;

/** How long a turn of the orphan sweep holds it: a sweep that died in the middle is taken over after this. */
const TURN_LEASE_MS = 10 * 60_000;

/** The keys among `objects` that are older than `before` and name no file record. */
async function orphansOf(
  rt: Runtime,
  objects: readonly { Key?: string; LastModified?: Date }[],
  before: number,
): Promise<string[]> {
  const old = objects.flatMap((o) =>
    o.Key && o.LastModified && o.LastModified.getTime() < before ? [o.Key] : [],
  );
  const recorded = await recordedFiles(
    rt,
    old.map((key) => key.slice(FILES_PREFIX.length)),
  );
  return old.filter((key) => !recorded.has(key.slice(FILES_PREFIX.length)));
}

/**
 * Removes objects under `files/` that no file record names: a deleted file's tombstone, and bytes
 * stored without a record (a request that stopped between its write to the bucket and its record).
 * Only objects older than any upload URL (`files.uploadUrlSeconds` and a margin) are touched: a
 * younger tombstone still stops a URL, and a younger object may be a write whose record is on its way.
 *
 * Listing costs a LIST request per 1,000 objects and a BatchGetItem per 100, so it does not run at
 * every minute's sweep: a pass begins once every `files.orphanSweepHours`, and reads at most
 * {@link PAGES_PER_SWEEP} pages a sweep, the next sweep going on after the last key (one conditional
 * write claims each turn, so two sweeps never list at once). Returns how many objects it removed.
 */
export async function sweepOrphanFiles(rt: Runtime): Promise<number> {
  const now = rt.clock();
  const turn = await claimOrphanPass(rt, now, TURN_LEASE_MS);
  if (!turn) return 0;
  const before = now - rt.settings.files.uploadUrlSeconds * 1000 - UPLOAD_URL_MARGIN_MS;
  const [s3, { paginateListObjectsV2 }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/list.ts')]);
  let removed = 0;
  let pages = 0;
  let reached: string | undefined;
  const listing = paginateListObjectsV2(
    { client: s3, pageSize: 1000 },
    { Bucket: rt.bucket, Prefix: FILES_PREFIX, StartAfter: turn.after },
  );
  for await (const page of listing) {
    const orphans = await orphansOf(rt, page.Contents ?? [], before);
    await deleteBlobs(rt, orphans);
    removed += orphans.length;
    pages += 1;
    if (pages === PAGES_PER_SWEEP && page.IsTruncated) {
      reached = page.Contents?.at(-1)?.Key;
      break;
    }
  }
  const period = rt.settings.files.orphanSweepHours * 3_600_000;
  // A pass that stopped part-way goes on at the next sweep; a finished one waits for its period.
  await finishOrphanPass(rt, reached === undefined ? now + period : now, reached);
  if (removed > 0) rt.logger.info('Removed objects no file record names', { count: removed });
  return removed;
}
