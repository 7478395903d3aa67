/**
 * Link tracking in a rendered email's HTML, pure string work: no DOM, so the HTML goes
 * out byte for byte as rendered except for the `href`s rewritten and the pixel added.
 *
 * A trackable link is an `<a>` whose `href` (once its character references are decoded) is
 * an absolute http(s) URL; `mailto:`, `tel:`, `#anchors`, relative and `javascript:` links
 * stay as they are and take no index. The index is the link's position among the
 * trackable ones, so the click route finds the URL again by rendering the same content and
 * reading the same position (`trackableLinks`): the URL never travels in the tracked link.
 */

/** An `<a ...>` start tag and its attribute text (quoted values may hold `>`). */
const ANCHOR = /<a(\s(?:[^>"']|"[^"]*"|'[^']*')*)?>/gi;
/** The href attribute within a tag's attribute text: quoted either way, or unquoted. */
const HREF = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;
const TRACKABLE = /^https?:\/\/[^\s]/i;

/** The absolute http(s) URLs of the HTML's links, in document order, as a browser would follow them. */
export function trackableLinks(html: string): string[] {
  const links: string[] = [];
  scan(html, (url) => {
    links.push(url);
    return undefined;
  });
  return links;
}

/**
 * The HTML with each trackable link's href replaced by `clickUrl(index)` (indexes as
 * `trackableLinks` counts them), and how many were rewritten.
 */
export function rewriteLinks(html: string, clickUrl: (index: number) => string): { readonly html: string; readonly links: number } {
  let links = 0;
  const rewritten = scan(html, () => attributeValue(clickUrl(links++)));
  return { html: rewritten, links };
}

/** The 1x1 open pixel, before the last `</body>` (or at the end when there is none). */
export function withOpenPixel(html: string, pixelUrl: string): string {
  const pixel = `<img src="${attributeValue(pixelUrl)}" width="1" height="1" alt="" style="border:0;width:1px;height:1px;overflow:hidden" />`;
  const close = html.toLowerCase().lastIndexOf('</body');
  return close < 0 ? `${html}${pixel}` : `${html.slice(0, close)}${pixel}${html.slice(close)}`;
}

/** Calls `visit` with each trackable link's URL; where it returns a value, that (already escaped) becomes the href. */
function scan(html: string, visit: (url: string) => string | undefined): string {
  return html.replace(ANCHOR, (tag: string, attributes: string | undefined) => {
    if (attributes === undefined) return tag;
    const href = HREF.exec(attributes);
    if (!href) return tag;
    const raw = href[2] ?? href[3] ?? href[4] ?? '';
    const url = decodeCharacterReferences(raw).trim();
    if (!TRACKABLE.test(url)) return tag;
    const replacement = visit(url);
    if (replacement === undefined) return tag;
    const start = href.index + href[1].length;
    return `${tag.slice(0, 2)}${attributes.slice(0, start)}"${replacement}"${attributes.slice(href.index + href[0].length)}>`;
  });
}

const NAMED: Readonly<Record<string, string>> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: '\u00a0' };

/** `&amp;`, `&#38;`, `&#x26;` and the few named references an href holds, decoded as a browser reads the attribute. */
function decodeCharacterReferences(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole: string, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/** A URL as a double-quoted attribute value. */
function attributeValue(url: string): string {
  return url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
