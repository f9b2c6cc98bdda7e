/**
 * `npm run contract`: writes docs/openapi.json and docs/asyncapi.json from the contract's zod
 * schemas, formatted as the repository's formatter wants them. test/unit/contract-documents.test.ts
 * fails while the committed files say something else.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { writeContractDocuments } from './contract.ts';

const docs = new URL('../docs/', import.meta.url);
const files = writeContractDocuments(docs).map((file) => fileURLToPath(new URL(file, docs)));
execFileSync('npx', ['biome', 'format', '--write', ...files], { stdio: 'inherit' });
for (const file of files) console.log(`wrote ${file.slice(fileURLToPath(new URL('..', docs)).length)}`);
