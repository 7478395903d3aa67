import { TemplateEngine, renderContent } from '@herald/rendering';
import { rewriteLinks, trackableLinks, withOpenPixel } from './tracked-links';

const click = (index: number): string => `https://t.example/c/${index}`;

describe('link tracking in an email', () => {
  it('rewrites absolute http(s) links in order, whatever their quoting, and leaves the rest as written', () => {
    const html = [
      '<p><a href="https://shop.example/cart?id=7&amp;ref=mail#top">cart</a>',
      "<A HREF='http://shop.example/a'>upper</A>",
      '<a class="x" href=https://shop.example/b title="t">unquoted</a>',
      '<a href="mailto:help@shop.example">mail</a><a href="tel:+100">tel</a>',
      '<a href="#section">anchor</a><a href="/relative">rel</a><a href="javascript:alert(1)">js</a>',
      '<a name="top">no href</a><abbr title="https://x">abbr</abbr>',
      '<a data-x=">" href="https://shop.example/c">quoted &gt; in an attribute</a></p>',
    ].join('');
    expect(trackableLinks(html)).toEqual(['https://shop.example/cart?id=7&ref=mail#top', 'http://shop.example/a', 'https://shop.example/b', 'https://shop.example/c']);
    const { html: rewritten, links } = rewriteLinks(html, click);
    expect(links).toBe(4);
    expect(rewritten).toBe(
      [
        '<p><a href="https://t.example/c/0">cart</a>',
        '<A HREF="https://t.example/c/1">upper</A>',
        '<a class="x" href="https://t.example/c/2" title="t">unquoted</a>',
        '<a href="mailto:help@shop.example">mail</a><a href="tel:+100">tel</a>',
        '<a href="#section">anchor</a><a href="/relative">rel</a><a href="javascript:alert(1)">js</a>',
        '<a name="top">no href</a><abbr title="https://x">abbr</abbr>',
        '<a data-x=">" href="https://t.example/c/3">quoted &gt; in an attribute</a></p>',
      ].join(''),
    );
    // The click route reads the same positions back from the HTML as rendered.
    expect(trackableLinks(rewritten)).toEqual([0, 1, 2, 3].map(click));
  });

  it('decodes character references as a browser reads the href (existing query strings kept whole)', () => {
    expect(trackableLinks('<a href="https://x.example/p?a=1&#38;b=2&#x26;c=%20&amp;d=&quot;q&quot;">x</a>')).toEqual(['https://x.example/p?a=1&b=2&c=%20&d="q"']);
    expect(rewriteLinks('<a href="https://x.example/?q=1">x</a>', () => 'https://t.example/c?x=1&y="2"').html).toBe('<a href="https://t.example/c?x=1&amp;y=&quot;2&quot;">x</a>');
  });

  it('tracks what the template rendered: a link given as data, and one whose text holds braces rendered literally', () => {
    const content = { subject: 'Hi', html: '<a href="{{url}}">open</a> <a href="https://x.example/\\{{raw}}">raw</a> <a href="{{{mail}}}">m</a>' };
    const rendered = renderContent(new TemplateEngine(), 'email', content, { url: 'https://shop.example/o/1?x=a&y=b', mail: 'mailto:a@b.example' });
    if (!rendered.ok || rendered.content.channel !== 'email') throw new Error('did not render');
    expect(trackableLinks(rendered.content.html ?? '')).toEqual(['https://shop.example/o/1?x=a&y=b', 'https://x.example/{{raw}}']);
  });

  it('adds the pixel before the closing body, or at the end without one', () => {
    expect(withOpenPixel('<html><body><p>x</p></BODY></html>', 'https://t.example/o')).toBe(
      '<html><body><p>x</p><img src="https://t.example/o" width="1" height="1" alt="" style="border:0;width:1px;height:1px;overflow:hidden" /></BODY></html>',
    );
    expect(withOpenPixel('<p>x</p>', 'https://t.example/o')).toMatch(/^<p>x<\/p><img src="https:\/\/t\.example\/o"/);
  });
});
