import { HTTP_URL, base64DecodedSize } from './formats';
import { ItemReader, ObjectReader, withoutUndefined } from './json-reader';
import { Attachment } from '@herald/contracts';

/** Interface section 8: an inline base64 attachment must decode to below 50 KB (50 × 1024 bytes). */
export const MAX_INLINE_ATTACHMENT_BYTES = 50 * 1024;

/** `$attachments` of trigger `data` or event `properties` (interface 2.1.4); absent means none. */
export function readAttachments(holder: ObjectReader): readonly Attachment[] {
  return holder.list('$attachments', readAttachment) ?? [];
}

/**
 * Exactly one of `url` (public URL form) and `data` (inline base64 form). Null counts as
 * absent because the SuprSend SDKs send `"url": null` with the base64 form and `"data": null`
 * with the URL form.
 */
const readAttachment: ItemReader<Attachment> = (value, path, issues) => {
  const item = ObjectReader.of(value, path, issues);
  if (item === undefined) return undefined;
  const [hasUrl, hasData] = [item.has('url'), item.has('data')];
  if (hasUrl === hasData) {
    issues.add(path, `must have exactly one of url (public URL form) or data (inline base64 form); it has ${hasUrl ? 'both' : 'neither'}`);
    return undefined;
  }
  const filename = item.string('filename');
  const ignore_if_error = item.boolean('ignore_if_error');
  if (hasUrl) {
    const url = item.string('url', { format: HTTP_URL });
    if (url === undefined || (filename === undefined && item.has('filename'))) return undefined;
    return withoutUndefined({ kind: 'url' as const, url, filename, ignore_if_error: ignore_if_error === true });
  }
  const data = readBase64(item);
  const content_type = readContentType(item);
  if (data === undefined || (filename === undefined && item.has('filename')) || content_type === false) return undefined;
  return withoutUndefined({ kind: 'inline' as const, ...data, filename, content_type, ignore_if_error: ignore_if_error === true });
};

function readBase64(item: ObjectReader): { data: string; size_bytes: number } | undefined {
  const data = item.string('data', { nonBlank: true });
  if (data === undefined) return undefined;
  const size_bytes = base64DecodedSize(data);
  if (size_bytes === undefined) {
    item.report('data', 'must be base64 (standard alphabet A-Z a-z 0-9 + /, optional = padding, no line breaks)');
    return undefined;
  }
  if (size_bytes >= MAX_INLINE_ATTACHMENT_BYTES) {
    item.report('data', `must decode to below ${MAX_INLINE_ATTACHMENT_BYTES} bytes (50 KB); it decodes to ${size_bytes}; pass a url instead`);
    return undefined;
  }
  return { data, size_bytes };
}

/**
 * `contentType`, or undefined when absent. `false` also counts as absent: the Node SDK
 * sends mime-types' `lookup()` result, which is false for an unknown extension.
 * Returns false when the value is wrong (reported).
 */
function readContentType(item: ObjectReader): string | undefined | false {
  if (item.value('contentType') === false) return undefined;
  const contentType = item.string('contentType', { nonBlank: true });
  return contentType === undefined && item.has('contentType') ? false : contentType;
}
