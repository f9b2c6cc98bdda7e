import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The TypeScript examples of the pages that show the public API compile against it: every ```ts
 * and ```tsx block of docs/agents.md and docs/hosts.md is a module of its own, importing
 * `switchboard`, `switchboard/client`, `switchboard/react`, `switchboard/react-dom` and
 * `switchboard/infra` as a team's
 * project does (here mapped to the sources), with strict checks.
 * What an example leaves to the reader (a page's `bubble`, a backend's `db`) is declared below, once.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = ['docs/agents.md', 'docs/hosts.md'];

/** The placeholders the examples use for the reader's own parts. */
const PLACEHOLDERS = `
declare global {
  const auth: { currentSession(): Promise<{ accessToken: string }> };
  const bubble: (messageId: string) => { append(text: string): void; replaceWith(text: string | null): void };
  const showError: (message: string) => void;
  const picked: File;
  const url: string;
  const wsUrl: string;
  const token: () => Promise<string>;
  const API_URL: string;
  const WS_URL: string;
  const getToken: () => Promise<string>;
  const conversationId: string;
  const loadLastSeq: () => Promise<number>;
  const saveLastSeq: (seq: number) => void;
  const ui: { select(value: unknown): void };
  const router: { push(name: unknown): void };
  const session: import('switchboard/client').Session;
  const stack: import('aws-cdk-lib').Stack;
  const switchboard: import('switchboard/infra').Switchboard;
  const pushTokensOf: (user: string) => Promise<string[]>;
}
export {};
`;

/** React Native's one part the examples use, declared as its types say; a stylesheet as a bundler takes it. */
const REACT_NATIVE = `
declare module 'switchboard/react-dom/styles.css';
declare module 'react-native' {
  export const AppState: { addEventListener(event: 'change', listener: (state: string) => void): void };
}
`;

function examplesOf(page: string): { name: string; text: string }[] {
  const markdown = readFileSync(join(ROOT, page), 'utf8');
  return [...markdown.matchAll(/^```(tsx?)\n([\s\S]*?)^```$/gm)].map((match, index) => ({
    name: join(ROOT, 'docs', '.examples', `${page.replace(/\W/g, '-')}-${index + 1}.${match[1]}`),
    text: match[2]!,
  }));
}

describe('the documentation examples', () => {
  it('compile against the public API, every ts and tsx block of the agent and host pages', () => {
    const examples = PAGES.flatMap(examplesOf);
    expect(examples.length).toBeGreaterThanOrEqual(15);
    const placeholders = join(ROOT, 'docs', '.examples', 'placeholders.d.ts');
    const virtual = new Map([
      ...examples.map((e) => [e.name, e.text] as const),
      [placeholders, PLACEHOLDERS],
      [join(ROOT, 'docs', '.examples', 'react-native.d.ts'), REACT_NATIVE],
    ]);
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      jsx: ts.JsxEmit.ReactJSX,
      baseUrl: ROOT,
      paths: {
        switchboard: ['lib/index.ts'],
        'switchboard/client': ['client/index.ts'],
        'switchboard/react': ['react/index.ts'],
        'switchboard/react-dom': ['react-dom/index.ts'],
        'switchboard/ai-sdk': ['ai-sdk/index.ts'],
        'switchboard/infra': ['infra/index.ts'],
      },
    };
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    const source = host.getSourceFile.bind(host);
    host.readFile = (file) => virtual.get(file) ?? read(file);
    host.fileExists = (file) => virtual.has(file) || exists(file);
    host.getSourceFile = (file, language, ...rest) => {
      const text = virtual.get(file);
      return text === undefined
        ? source(file, language, ...rest)
        : ts.createSourceFile(
            file,
            text,
            language,
            true,
            file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
          );
    };
    const program = ts.createProgram([...virtual.keys()], options, host);
    // Only the examples are checked (what they use of the sources is resolved, not re-checked:
    // `npm run check` checks the sources), which costs a fraction of checking every file.
    const problems = [...virtual.keys()]
      .flatMap((file) => {
        const sourceFile = program.getSourceFile(file);
        return sourceFile
          ? [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)]
          : [];
      })
      .map((d) => {
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        const where = d.file!.fileName.slice(ROOT.length);
        return `${where}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
    expect(problems).toEqual([]);
  }, 120_000);
});
