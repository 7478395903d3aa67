import { Inject, Injectable } from '@nestjs/common';
import { Attachment } from '@herald/contracts';
import { LoadedAttachment } from '@herald/rendering';
import { HTTP_PORT, HttpPort } from '../vendors/http/http.port';

/** Vendors cap a whole message at 20 to 40 MB; one file past this is surely a mistake. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 20_000;
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type LoadResult = { readonly ok: true; readonly attachments: readonly LoadedAttachment[] } | { readonly ok: false; readonly reason: string };

type OneResult = { readonly ok: true; readonly attachment: LoadedAttachment } | { readonly ok: false; readonly reason: string };

/**
 * Loads a command's e-mail attachments (interface 2.1.4) before its send: URL ones
 * fetched through the outbound address rule (a private address is refused unless
 * allowed), inline ones decoded. One that fails is left out when it says
 * `ignore_if_error`; otherwise the whole delivery fails, since an e-mail without the
 * invoice it announces is worse than none.
 */
@Injectable()
export class AttachmentLoader {
  constructor(@Inject(HTTP_PORT) private readonly http: HttpPort) {}

  async load(attachments: readonly Attachment[]): Promise<LoadResult> {
    const loaded: LoadedAttachment[] = [];
    for (const [index, attachment] of attachments.entries()) {
      const result = attachment.kind === 'url' ? await this.fetch(attachment, index) : decodeInline(attachment, index);
      if (result.ok) loaded.push(result.attachment);
      else if (!attachment.ignore_if_error) return { ok: false, reason: result.reason };
    }
    return { ok: true, attachments: loaded };
  }

  private async fetch(attachment: Extract<Attachment, { kind: 'url' }>, index: number): Promise<OneResult> {
    const label = `attachment ${index + 1} (${withoutQuery(attachment.url)})`;
    try {
      const response = await this.http.getBytes(attachment.url, { maxBytes: MAX_ATTACHMENT_BYTES, timeoutMs: FETCH_TIMEOUT_MS });
      if (response.status < 200 || response.status >= 300) return { ok: false, reason: `${label} could not be loaded: HTTP ${response.status}` };
      return {
        ok: true,
        attachment: {
          filename: attachment.filename ?? filenameOf(attachment.url, index),
          contentType: mediaTypeOf(response.contentType) ?? DEFAULT_CONTENT_TYPE,
          content: response.body,
        },
      };
    } catch (error) {
      return { ok: false, reason: `${label} could not be loaded: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

function decodeInline(attachment: Extract<Attachment, { kind: 'inline' }>, index: number): OneResult {
  const text = attachment.data.replace(/\s+/g, '');
  // Buffer.from skips what is not base64 silently, which would send a corrupt file.
  if (text.length % 4 === 1 || !BASE64.test(text)) return { ok: false, reason: `attachment ${index + 1} is not valid base64` };
  const content = Buffer.from(text, 'base64');
  if (content.length > MAX_ATTACHMENT_BYTES) return { ok: false, reason: `attachment ${index + 1} is over ${MAX_ATTACHMENT_BYTES} bytes` };
  return {
    ok: true,
    attachment: { filename: attachment.filename ?? `attachment-${index + 1}`, contentType: attachment.content_type ?? DEFAULT_CONTENT_TYPE, content },
  };
}

/** Signed URLs carry their credential in the query: reasons and logs show the rest only. */
function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'an invalid URL';
  }
}

/** The last path segment (`invoice.pdf`), else a numbered name. */
function filenameOf(url: string, index: number): string {
  try {
    const segment = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return segment === '' ? `attachment-${index + 1}` : segment;
  } catch {
    return `attachment-${index + 1}`;
  }
}

function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';', 1)[0].trim().toLowerCase();
  return type === '' ? undefined : type;
}
