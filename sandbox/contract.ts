import { writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { asyncApiDocument, openApiDocument } from '../lib/documents/index.ts';

/** The contract as data: the path each document is served at, without auth, and its file in docs/. */
export const CONTRACT_DOCUMENTS = {
  '/api/openapi.json': { file: 'openapi.json', build: openApiDocument },
  '/api/asyncapi.json': { file: 'asyncapi.json', build: asyncApiDocument },
} as const;

type ContractPath = keyof typeof CONTRACT_DOCUMENTS;
const built = new Map<ContractPath, string>();

/** A document as its file holds it: JSON, two spaces, a final newline. */
export function contractDocumentText(path: ContractPath): string {
  let text = built.get(path);
  if (text === undefined) {
    text = `${JSON.stringify(CONTRACT_DOCUMENTS[path].build(), null, 2)}\n`;
    built.set(path, text);
  }
  return text;
}

/**
 * Serves the OpenAPI and AsyncAPI documents (generated once, on first request). No token is asked:
 * they describe the API, they hold nothing of anyone's. Returns true when it answered.
 */
export function serveContract(req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (!Object.hasOwn(CONTRACT_DOCUMENTS, path)) return false;
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    // A viewer on another origin (an OpenAPI UI) may read it.
    'access-control-allow-origin': '*',
  });
  res.end(contractDocumentText(path as ContractPath));
  return true;
}

/** Writes every document to its file in `dir` (docs/ by `npm run contract`). */
export function writeContractDocuments(dir: URL): string[] {
  return Object.entries(CONTRACT_DOCUMENTS).map(([path, { file }]) => {
    writeFileSync(new URL(file, dir), contractDocumentText(path as ContractPath));
    return file;
  });
}
