// Packs the repository's package (`npm pack`, which builds it first) into this folder as
// switchboard.tgz, the file package.json's `switchboard` dependency names: the app then installs
// Switchboard as a team does from the registry, files and dependencies of its own, and React
// resolves (an optional peer of the package) to the app's one copy. Run it again, then `npm install`,
// after changing the package.
import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = fileURLToPath(new URL('..', import.meta.url));
const root = join(app, '..', '..');
// --built skips the build (`--ignore-scripts`) when the package is built already, as in CI.
const args = ['pack', '--json', '--pack-destination', app];
if (process.argv.includes('--built')) args.push('--ignore-scripts');
const out = execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const [{ filename }] = JSON.parse(out);
renameSync(join(app, filename), join(app, 'switchboard.tgz'));
console.log(`Packed ${filename} as switchboard.tgz`);
