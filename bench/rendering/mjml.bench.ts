// MJML beside plain HTML: the CPU of one email render through @herald/rendering, for an
// HTML variant, for an MJML variant whose compiled output is cached (every message after
// the first of a template version), and for a compile of MJML never seen (the first).
//   npm run bench:mjml -- --renders 2000
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { TemplateEngine, compileMjml, renderVariant } from '@herald/rendering';

const MJML = `<mjml><mj-head><mj-attributes><mj-all font-family="Helvetica, Arial" /></mj-attributes></mj-head><mj-body>
  <mj-section><mj-column><mj-image src="https://cdn.example.com/logo.png" width="120px" /></mj-column></mj-section>
  <mj-section><mj-column>
    <mj-text font-size="20px">Hello {{$recipient.first_name}},</mj-text>
    <mj-text>Your order {{order}} has shipped. It should arrive on {{eta}}.</mj-text>
    <mj-button href="https://shop.example.com/orders/{{order}}">Track your order</mj-button>
    <mj-divider />
    <mj-text font-size="11px" color="#777">You receive this because you ordered from Example Shop.</mj-text>
  </mj-column></mj-section>
</mj-body></mjml>`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { renders: { type: 'string', default: '2000' } } });
  const renders = Number(values.renders);
  const engine = new TemplateEngine();
  const html = (await compileMjml(MJML)).html;
  const data = { $recipient: { first_name: 'Ada' }, order: 'A-7', eta: 'Monday' };
  const cpu = async (label: string, count: number, render: (i: number) => Promise<unknown>): Promise<number> => {
    for (let i = 1; i <= Math.min(50, count); i++) await render(-i); // warm-up (other sources than the measured ones)
    const start = process.cpuUsage();
    const wall = performance.now();
    for (let i = 0; i < count; i++) await render(i);
    const used = process.cpuUsage(start);
    const perRender = (used.user + used.system) / 1000 / count;
    console.log(`${label.padEnd(36)} ${perRender.toFixed(3)} ms CPU per render (${((performance.now() - wall) / count).toFixed(3)} ms wall), ${count} renders`);
    return perRender;
  };
  const plain = await cpu('html variant', renders, () => renderVariant(engine, 'email', { subject: 'Order {{order}}', html }, data));
  const cached = await cpu('mjml variant, compiled output cached', renders, () => renderVariant(engine, 'email', { subject: 'Order {{order}}', mjml: MJML }, data));
  // A comment makes each source new: a compile every time, as without the cache.
  const uncached = await cpu('mjml variant, compiled every time', Math.max(20, Math.floor(renders / 20)), (i) =>
    renderVariant(engine, 'email', { subject: 'Order {{order}}', mjml: MJML.replace('<mj-body>', `<mj-body><mj-raw><!-- ${i} --></mj-raw>`) }, data),
  );
  console.log(`cached mjml / html: ${(cached / plain).toFixed(2)}x; uncached mjml / html: ${(uncached / plain).toFixed(0)}x`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
