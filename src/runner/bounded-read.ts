/**
 * Reads a byte stream as UTF-8, or null (the stream cancelled) once it exceeds `limit` bytes: the
 * one bounded reader of request bodies (the service) and of the service's answers (`mac agent`).
 */
export async function readStreamLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | null> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
