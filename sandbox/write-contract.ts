/**
 * `npm run contract`: writes docs/openapi.json and docs/asyncapi.json from the contract's zod
 * schemas, formatted as the repository's formatter wants them, and the table of a message's limits
 * in docs/protocol.md, and the tables of runs' and requests' transitions in docs/runs.md.
 * test/unit/contract-documents.test.ts, test/unit/protocol-limits.test.ts and
 * test/unit/transitions.test.ts fail while the committed files say something else.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withLimits } from '../lib/contract/documents/limits.ts';
import { withTransitions } from '../lib/store/machine-doc.ts';
import { writeContractDocuments } from './contract.ts';

const docs = new URL('../docs/', import.meta.url);
const files = writeContractDocuments(docs).map((file) => fileURLToPath(new URL(file, docs)));
execFileSync('npx', ['biome', 'format', '--write', ...files], { stdio: 'inherit' });
for (const file of files) console.log(`wrote ${file.slice(fileURLToPath(new URL('..', docs)).length)}`);

const protocol = new URL('protocol.md', docs);
writeFileSync(protocol, withLimits(readFileSync(protocol, 'utf8')));
console.log('wrote docs/protocol.md (the limits of a message)');

const runs = new URL('runs.md', docs);
writeFileSync(runs, withTransitions(readFileSync(runs, 'utf8')));
console.log('wrote docs/runs.md (the transitions of runs and requests)');
