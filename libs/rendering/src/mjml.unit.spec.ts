import { compileMjml, renderVariant } from './mjml';
import { TemplateEngine } from './template-engine';

const engine = new TemplateEngine();
const MJML = `<mjml><mj-body><mj-section><mj-column>
  <mj-text>Hello {{name}}</mj-text>
  <mj-button href="https://shop.test/orders/{{order}}">Track</mj-button>
</mj-column></mj-section></mj-body></mjml>`;

describe('MJML email content', () => {
  it('compiles MJML to HTML and renders its placeholders as html is rendered (escaped), reporting missing ones', async () => {
    const result = await renderVariant(engine, 'email', { subject: 'Order {{order}}', mjml: MJML }, { name: 'Ada <admin>', order: 'A-7' });
    expect(result.ok).toBe(true);
    if (!result.ok || result.content.channel !== 'email') throw new Error('expected a rendered email');
    expect(result.content.subject).toBe('Order A-7');
    expect(result.content.html).toContain('Hello Ada &lt;admin&gt;');
    expect(result.content.html).toContain('href="https://shop.test/orders/A-7"');
    // MJML's output: a table layout with inlined styles, not the source's tags.
    expect(result.content.html).toMatch(/<table[^>]*role="presentation"/);
    expect(result.content.html).not.toContain('<mj-');
    expect(result.missingVariables).toEqual([]);

    const missing = await renderVariant(engine, 'email', { subject: 'Hi', mjml: MJML }, { order: 'A-7' });
    expect(missing).toMatchObject({ ok: true, missingVariables: ['html: name'] });
  });

  it('reports unknown tags with their line and ignores mj-include (it would read the server\'s files)', async () => {
    const broken = await compileMjml('<mjml><mj-body>\n<mj-section><mj-colum>x</mj-colum></mj-section></mj-body></mjml>');
    expect(broken.errors).toEqual([{ line: 2, message: "Element mj-colum doesn't exist or is not registered" }]);
    const include = await compileMjml('<mjml><mj-body><mj-include path="/etc/passwd" type="html" /></mj-body></mjml>');
    expect(include.html).not.toContain('root:');
  });

  it('leaves html content and other channels to renderContent, and refuses an mjml that is not a string', async () => {
    expect(await renderVariant(engine, 'email', { subject: 'S', html: '<p>{{name}}</p>' }, { name: 'Ada' })).toMatchObject({ ok: true, content: { html: '<p>Ada</p>' } });
    expect(await renderVariant(engine, 'sms', { text: 'Hi {{name}}' }, { name: 'Ada' })).toMatchObject({ ok: true, content: { text: 'Hi Ada' } });
    expect(await renderVariant(engine, 'email', { subject: 'S', mjml: 42 }, {})).toEqual({ ok: false, reason: 'template error in mjml: must be a string' });
  });
});
