import { Readable } from 'node:stream';

export interface BodyBytes {
  readonly bytes: Buffer;
  /** False when the body went past the limit and only its first `limit` bytes were kept. */
  readonly complete: boolean;
}

/** Reads at most `limit` bytes, then stops the transfer (leaving the loop destroys the stream). */
export async function readBody(stream: Readable, limit: number): Promise<BodyBytes> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      return { bytes: Buffer.concat(chunks), complete: false };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), complete: true };
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}

function charset(contentType: string | undefined): string {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1] : 'utf-8';
}

export function isJsonContentType(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || type.endsWith('+json');
}

function decodeText(bytes: Buffer, label: string): string {
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 is the best guess and the web's default.
    return new TextDecoder().decode(bytes);
  }
}

/**
 * The body as callers use it: parsed JSON when the content type says JSON and it
 * parses, the text otherwise (a truncated body is never parsed).
 */
export function decodeBody(body: BodyBytes, contentType: string | undefined): unknown {
  const text = decodeText(body.bytes, charset(contentType));
  if (!body.complete || !isJsonContentType(contentType) || text.trim() === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
