/**
 * A browser origin as the `Origin` header sends it: `scheme://host[:port]`, lowercase,
 * no path and no default port. Null when the text is not one, so a key's allowed
 * origins and a request's Origin compare as plain strings.
 */
export function normalizeOrigin(text: string): string | null {
  if (!/^https?:\/\/[^/?#\s]+\/?$/i.test(text)) return null;
  try {
    const url = new URL(text);
    if (url.username !== '' || url.password !== '') return null;
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}
