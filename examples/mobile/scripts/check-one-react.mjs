// The app's bundle holds one React: two copies (the app's and another the package resolved to)
// are React's "Invalid hook call" on a device. Bundles the app as a release does
// (`expo export --platform android --source-maps`), then reads the source maps: every module under
// a `node_modules/react/` folder names a copy of React, and exactly one copy may be there.
//
//   node scripts/check-one-react.mjs               bundle the app, then check its source maps
//   node scripts/check-one-react.mjs --maps DIR    check the source maps already in DIR
//
// Exits 1 on two copies or more, on none (a bundle without React checks nothing), or when the
// bundle cannot be made. The bundle, and Metro's cache, go to a folder here that is removed after.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = fileURLToPath(new URL('..', import.meta.url));

/** The source maps under `dir`, at any depth. */
function mapsIn(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.map'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The React packages the maps' sources come from: each `…/node_modules/react` folder, with its module count. */
function reactCopies(maps) {
  const copies = new Map();
  for (const map of maps) {
    const { sources = [] } = JSON.parse(readFileSync(map, 'utf8'));
    for (const source of sources) {
      const match = /^(.*?(?:^|\/)node_modules\/react)\//.exec(String(source).replaceAll('\\', '/'));
      if (match) copies.set(match[1], (copies.get(match[1]) ?? 0) + 1);
    }
  }
  return copies;
}

function fail(message) {
  console.error(`examples/mobile: ${message}`);
  process.exit(1);
}

const given = process.argv.indexOf('--maps');
let dir = given === -1 ? undefined : process.argv[given + 1];
const scratch = join(app, '.bundle-check');
if (!dir) {
  rmSync(scratch, { recursive: true, force: true });
  const tmp = join(scratch, 'tmp');
  mkdirSync(tmp, { recursive: true });
  dir = join(scratch, 'out');
  const started = Date.now();
  const expo = spawnSync(
    join(app, 'node_modules', '.bin', 'expo'),
    ['export', '--platform', 'android', '--source-maps', '--clear', '--output-dir', dir],
    // Metro caches under the OS's temporary folder: here, that is this check's own folder.
    {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      // A bundle takes under a minute on two cores: a hung one fails the check instead of the run's time.
      timeout: 600_000,
      env: { ...process.env, TMPDIR: tmp, CI: '1', EXPO_NO_TELEMETRY: '1' },
    },
  );
  if (expo.status !== 0) {
    console.error(expo.stdout, expo.stderr);
    rmSync(scratch, { recursive: true, force: true });
    fail(`expo export failed (${expo.error?.message ?? `exit ${expo.status}`}): no bundle to check.`);
  }
  console.log(`examples/mobile: bundled for android in ${Math.round((Date.now() - started) / 1000)} s`);
}

const maps = mapsIn(dir);
const copies = reactCopies(maps);
if (given === -1) rmSync(scratch, { recursive: true, force: true });
if (maps.length === 0) fail(`no source map in ${dir}: nothing to check.`);
const list = [...copies].map(([path, modules]) => `  ${path} (${modules} modules)`).join('\n');
if (copies.size === 0) fail('the bundle holds no React: the check found nothing to count.');
if (copies.size > 1)
  fail(`the bundle holds ${copies.size} copies of React (one is "Invalid hook call"):\n${list}`);
console.log(`examples/mobile: one React in the bundle:\n${list}`);
