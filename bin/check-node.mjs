// Run first by `npm start`, `npm test` and `npm run bench`: on a Node that `engines` excludes they
// would go on to fail in odd places, after a screen of warnings, so they stop here with one line.
// With a version argument, checks that version instead (the tests use it).
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const wanted = manifest.engines.node;
const version = process.argv[2] ?? process.versions.node;

/** The version's parts, or undefined for anything but `X.Y.Z`. */
function parts(text) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  return match ? match.slice(1).map(Number) : undefined;
}

function atLeast(have, floor) {
  const differing = have.findIndex((part, index) => part !== floor[index]);
  return differing === -1 || have[differing] > floor[differing];
}

// Only the forms `engines` uses: `^X.Y.Z` and `>=X.Y.Z`, joined by `||`.
function satisfies(have, range) {
  return range.split('||').some((part) => {
    const match = /^\s*(\^|>=)(.+)$/.exec(part);
    const floor = match && parts(match[2]);
    if (!floor) throw new Error(`bin/check-node.mjs cannot read the engines range "${part.trim()}"`);
    return atLeast(have, floor) && (match[1] === '>=' || have[0] === floor[0]);
  });
}

const have = parts(version);
if (!have || !satisfies(have, wanted)) {
  console.error(
    `Switchboard needs Node ${wanted}, not ${version}: run \`npm ci\`, which installs Node ${manifest.devDependencies.node} for the npm scripts, or switch to Node 22 (\`nvm install 22\`).`,
  );
  process.exit(1);
}
