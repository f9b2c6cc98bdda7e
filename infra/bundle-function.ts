/**
 * Builds one function into a directory: `tsx infra/bundle-function.ts <entry> <agents> <outdir> [target]`
 * (the target is esbuild's, `node22` or `node24`: the Node of the function's runtime).
 * The construct runs it at synth (asset bundling is synchronous, esbuild's plugins are not); it is
 * the same build as `bench/bundles.ts` measures.
 *
 * The source maps are moved out of the asset, to `switchboard-source-maps/<entry>/` beside it in the
 * cloud assembly (`cdk.out`): a function never reads them, and in the asset they would only add to the
 * package Lambda fetches at each cold start. They decode a logged stack trace when one is needed.
 */
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleFunction, SWITCHBOARD_ENTRIES, type SwitchboardEntry } from './bundling.ts';

const [entry, agents, outdir, target] = process.argv.slice(2);
if (!SWITCHBOARD_ENTRIES.includes(entry as SwitchboardEntry) || !agents || !outdir) {
  console.error(
    'Usage: tsx infra/bundle-function.ts <http|ws|worker|sweep|authorizer|agui> <agents module> <outdir> [node22|node24]',
  );
  process.exit(2);
}
await bundleFunction(entry as SwitchboardEntry, agents, outdir, target ? { target } : {});

const maps = join(dirname(outdir), 'switchboard-source-maps', entry as string);
rmSync(maps, { recursive: true, force: true });
for (const file of readdirSync(outdir, { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.map')) continue;
  mkdirSync(dirname(join(maps, file)), { recursive: true });
  renameSync(join(outdir, file), join(maps, file));
}
