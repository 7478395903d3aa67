// What engagement tracking adds to sending one email: rewriting its links, adding the
// open pixel and signing a token per link and the List-Unsubscribe link (EngagementTracking,
// what the dispatcher hands the vendor), then composing the MIME message. The peer is the
// same email without tracking: its composition alone. Both phases alternate over rounds,
// so a busy machine slows both alike; CPU time of this process, per email.
//
//   node -r ./tools/register.js bench/engagement/engagement.bench.ts [--emails 2000] [--rounds 5] [--links 12] [--json]

import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DeliveryRequested } from '@herald/contracts';
import { EmailContent } from '@herald/rendering';
import { HeraldConfig, HeraldLogger } from '@herald/runtime';
import { EngagementTracking } from '../../libs/services/channel-dispatchers/src/engagement/engagement-tracking';
import { composeMessage } from '../../libs/services/channel-dispatchers/src/vendors/email/mime-message';
import { VendorConfig } from '../../libs/services/channel-dispatchers/src/vendors/vendor.port';
import { loadAverage, numberOption, progressWriter, runBenchMain } from '../shared/bench-kit';

const progress = progressWriter('engagement');

/** A newsletter-shaped email: about 8 kB of HTML with `links` links, a text part. */
function emailOf(links: number): EmailContent {
  const items = Array.from({ length: links }, (_, i) => `<tr><td><a href="https://shop.example.com/p/${i}?utm_source=mail&amp;utm_campaign=winter">Item ${i}</a><p>${'A fine thing, well made. '.repeat(12)}</p></td></tr>`);
  const html = `<!doctype html><html><body><table>${items.join('')}</table><p><a href="mailto:help@shop.example.com">Help</a></p></body></html>`;
  return { channel: 'email', subject: 'Winter sale', html, text: 'Winter sale: https://shop.example.com/' };
}

function commandOf(index: number): DeliveryRequested {
  return {
    delivery_id: `${randomBytes(16).toString('hex')}:delivery:0:email`,
    run_id: 'r',
    message_id: 'm',
    workspace_slug: 'staging',
    workflow: { slug: 'winter', version: 1 },
    node_name: 'Mail',
    channel: 'email',
    recipient: { kind: 'user', distinct_id: `user-${index}` },
    destination: { identities: [`user-${index}@example.com`] },
    template: { slug: 'winter', variant_id: 'v', content: {} },
    render_data: {},
    category: 'promotional',
    unsubscribable: true,
    attachments: [],
    requested_at: new Date().toISOString(),
  };
}

async function main(): Promise<number> {
  const emails = numberOption('--emails', 2_000);
  const rounds = numberOption('--rounds', 5);
  const links = numberOption('--links', 12);
  const quiet: HeraldLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as HeraldLogger;
  const config = { publicUrl: 'https://notify.example.com', secretsKey: randomBytes(32) } as unknown as HeraldConfig;
  const tracking = new EngagementTracking(config, { now: () => new Date() }, quiet);
  const vendor: VendorConfig = { id: 'v', channel: 'email', vendor: 'smtp', priority: 1, baseUrl: null, settings: {}, credentials: {}, version: 1 };
  const content = emailOf(links);
  const commands = Array.from({ length: emails }, (_, i) => commandOf(i));
  const compose = (email: EmailContent, i: number) =>
    composeMessage({ from: 'shop@example.com', to: `user-${i}@example.com`, subject: email.subject, html: email.html, text: email.text, messageId: `<${i}@herald>`, headers: email.headers });

  const phases = {
    untracked: async (): Promise<void> => {
      for (let i = 0; i < emails; i++) await compose(content, i);
    },
    tracked: async (): Promise<void> => {
      for (let i = 0; i < emails; i++) await compose(tracking.contentFor({ command: commands[i], workspaceId: 'w' }, content, vendor) as EmailContent, i);
    },
  };
  const cpu: Record<keyof typeof phases, number[]> = { untracked: [], tracked: [] };
  await phases.untracked();
  await phases.tracked(); // warm-up
  for (let round = 1; round <= rounds; round++) {
    for (const name of round % 2 === 0 ? (['tracked', 'untracked'] as const) : (['untracked', 'tracked'] as const)) {
      const before = process.cpuUsage();
      const wall = performance.now();
      await phases[name]();
      const used = process.cpuUsage(before);
      cpu[name].push(((used.user + used.system) / emails));
      progress(`round ${round} ${name}: ${(((used.user + used.system) / emails)).toFixed(1)} µs CPU per email, ${(performance.now() - wall).toFixed(0)} ms wall`);
    }
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const untracked = median(cpu.untracked);
  const tracked = median(cpu.tracked);
  const sample = tracking.contentFor({ command: commands[0], workspaceId: 'w' }, content, vendor) as EmailContent;
  process.stdout.write(
    [
      `| emails | links | HTML bytes (untracked → tracked) | untracked µs CPU/email | tracked µs CPU/email | added µs | ratio | load average |`,
      `|---|---|---|---|---|---|---|---|`,
      `| ${emails} × ${rounds} | ${links} | ${content.html?.length} → ${sample.html?.length} | ${untracked.toFixed(1)} | ${tracked.toFixed(1)} | ${(tracked - untracked).toFixed(1)} | ${(tracked / untracked).toFixed(2)}x | ${loadAverage()} |`,
      '',
    ].join('\n'),
  );
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ emails, rounds, links, untracked_us: untracked, tracked_us: tracked, ratio: tracked / untracked })}\n`);
  return 0;
}

runBenchMain('engagement', main);
