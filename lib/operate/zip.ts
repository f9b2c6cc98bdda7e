import JSZip from 'jszip';

/**
 * One file of a zip archive (a Lambda code zip), by its path; undefined when the archive has no such
 * file. Read with JSZip, which the package already installs for DOCX text (mammoth).
 */
export async function readZipEntry(zip: Uint8Array, name: string): Promise<Buffer | undefined> {
  const archive = await JSZip.loadAsync(zip).catch((error: unknown) => {
    throw new Error(`not a zip archive (${error instanceof Error ? error.message : String(error)})`);
  });
  const file = archive.file(name) ?? archive.file(`./${name}`);
  return file ? await file.async('nodebuffer') : undefined;
}
