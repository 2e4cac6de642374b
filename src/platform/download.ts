// The bounded download every platform uses for a shared file: at most `maxBytes` (plus one chunk) is read, and
// leaving the loop cancels the rest, so an oversized file costs the bot no more than the bound.
export async function boundedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!response.body) return new Uint8Array();
  for await (const chunk of response.body) {
    chunks.push(chunk);
    total += chunk.byteLength;
    if (total > maxBytes) break;
  }
  return Buffer.concat(chunks);
}
