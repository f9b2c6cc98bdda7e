/**
 * One file of a zip archive (a Lambda code zip), by its path; undefined when the archive has no such
 * file. Read with JSZip, which the package already installs for DOCX text (mammoth), loaded here on
 * first use: only the deployed-settings command reads a zip, and every other command and the sandbox
 * import this module's neighbours.
 */
export async function readZipEntry(zip: Uint8Array, name: string): Promise<Buffer | undefined> {
  const { default: JSZip } = await import('jszip');
  const archive = await JSZip.loadAsync(zip).catch((error: unknown) => {
    throw new Error(`not a zip archive (${error instanceof Error ? error.message : String(error)})`);
  });
  const file = archive.file(name) ?? archive.file(`./${name}`);
  return file ? await file.async('nodebuffer') : undefined;
}
