/**
 * The text of a file, the way a user expects to read it: plain text, Markdown, CSV and JSON as
 * they are; HTML without its tags; PDF and DOCX through maintained libraries (unpdf, mammoth),
 * imported only when such a file is read, so that no function loads them before it needs them
 * and the HTTP and WebSocket functions never bundle them.
 */

/** How a file's text is taken out of it. */
export type TextKind = 'plain' | 'html' | 'pdf' | 'docx';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const BY_TYPE: [RegExp, TextKind][] = [
  [/^text\/html$|^application\/xhtml\+xml$/, 'html'],
  [/^text\//, 'plain'],
  [/^application\/(json|ld\+json|xml|x-yaml|yaml|csv|x-ndjson|javascript|x-sh|sql)$/, 'plain'],
  [/\+(json|xml)$/, 'plain'],
  [/^application\/pdf$/, 'pdf'],
  [new RegExp(`^${DOCX.replaceAll('.', '\\.')}$`), 'docx'],
];

/** For a file sent without a useful type (`application/octet-stream`), its name's extension decides. */
const BY_EXTENSION: Record<string, TextKind> = {
  txt: 'plain',
  md: 'plain',
  markdown: 'plain',
  csv: 'plain',
  tsv: 'plain',
  json: 'plain',
  log: 'plain',
  xml: 'plain',
  yaml: 'plain',
  yml: 'plain',
  html: 'html',
  htm: 'html',
  pdf: 'pdf',
  docx: 'docx',
};

/** How the text of a file of this type and name is read; undefined when it has none to give (an image, an archive). */
export function textKindOf(mediaType: string, name: string): TextKind | undefined {
  const found = BY_TYPE.find(([pattern]) => pattern.test(mediaType))?.[1];
  if (found || mediaType !== 'application/octet-stream') return found;
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return extension ? BY_EXTENSION[extension] : undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** HTML as a reader sees it: no scripts, styles or tags; block ends as line breaks; entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|template|noscript)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|section|article|header|footer|blockquote|pre|table|ul|ol)\s*>/gi, '\n')
    .replace(/<\/(td|th)\s*>/gi, '\t')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .replace(/[ \t\f\v]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  // pdf.js takes the buffer over: give it a copy, the caller's bytes stay usable.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    return (await extractText(pdf, { mergePages: true })).text;
  } finally {
    await pdf.destroy();
  }
}

async function docxText(bytes: Uint8Array): Promise<string> {
  const mammoth = await import('mammoth');
  const extract = mammoth.extractRawText ?? mammoth.default.extractRawText;
  const { value } = await extract({ buffer: Buffer.from(bytes) });
  return value.replace(/\n{3,}/g, '\n\n').trim();
}

/** The text of `bytes`, read as `kind`; throws when the document is malformed. */
export async function extractText(bytes: Uint8Array, kind: TextKind): Promise<string> {
  switch (kind) {
    case 'plain':
      return new TextDecoder().decode(bytes);
    case 'html':
      return htmlToText(new TextDecoder().decode(bytes));
    case 'pdf':
      return pdfText(bytes);
    case 'docx':
      return docxText(bytes);
  }
}
