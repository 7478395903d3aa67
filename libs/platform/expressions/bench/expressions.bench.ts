/**
 * Evaluations per second of the expression ports, one thread, compiled-filter cache hit:
 *   node -r ./tools/register.js libs/platform/expressions/bench/expressions.bench.ts [seconds per row]
 * Each row runs one expression over the corpus payload for the given time (default 3 s).
 */
import { CORPUS_INPUT, CORPUS_VARIABLES } from '../src/jq/jq-corpus';
import { createExpressionEngines, isJqSyntaxError } from '../src';

const seconds = Number(process.argv[2] ?? 3);

function rate(label: string, run: () => unknown): void {
  for (let i = 0; i < 200; i += 1) run(); // warm-up
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < seconds * 1000) {
    run();
    count += 1;
  }
  const perSecond = count / ((performance.now() - started) / 1000);
  console.log(`${String(Math.round(perSecond)).padStart(8)}/s  ${label}`);
}

async function main(): Promise<void> {
  const engines = createExpressionEngines();
  const jqFilters = [
    '$recipient.properties.digest // "1h"',
    '.order.items | map(select(.qty > 1)) | length',
    '"\\(.user.name) ordered \\(.order.items | length) items" | ascii_downcase',
    '(.order.placed_at | fromdate) + .delay_minutes * 60 | todate',
  ];
  console.log(`jq (jq-wasm 3.0.0-jq-1.8.2 in a worker thread), ${seconds} s per row`);
  for (const filter of jqFilters) {
    const compiled = engines.jq.compile(filter);
    if (isJqSyntaxError(compiled)) throw new Error(compiled.message);
    rate(`evaluate ${filter}`, () => {
      const result = compiled.evaluate(CORPUS_INPUT, CORPUS_VARIABLES);
      if (!result.ok) throw new Error(result.error.message);
    });
  }
  rate('compile (cache hit) + evaluate .order.id', () => {
    const compiled = engines.jq.compile('.order.id');
    if (isJqSyntaxError(compiled) || !compiled.evaluate(CORPUS_INPUT, CORPUS_VARIABLES).ok) throw new Error('failed');
  });

  const data = { ...CORPUS_INPUT, $recipient: CORPUS_VARIABLES.recipient, $tenant: CORPUS_VARIABLES.tenant };
  console.log('Jsonnet (@arakoodev/jsonnet 0.24.0: jrsonnet in WebAssembly, in a worker thread)');
  const scripts = [
    '{ url: "https://api.example.com/users/" + data["$recipient"].distinct_id, tier: data["$tenant"].properties.tier }',
    'std.format("%s ordered %d items (%.2f %s)", [data.user.name, std.length(data.order.items), data.order.total, data.order.currency])',
  ];
  for (const script of scripts) {
    rate(`evaluate ${script}`, () => {
      if (!engines.jsonnet.evaluate(script, data).ok) throw new Error('failed');
    });
  }
  rate('evaluateTemplateValue https://example.com/hook (literal)', () => engines.jsonnet.evaluateTemplateValue('https://example.com/hook', data));
  rate('evaluateTemplateValue "https://x/" + data.order.id (check + evaluate)', () => engines.jsonnet.evaluateTemplateValue('"https://x/" + data.order.id', data));
  console.log(`rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
  await engines.close();
}

void main();
