import { DeliveryRequested } from '@herald/contracts';
import { WorkflowNode } from '../definition';
import { T0, at, context, given, last, ofType, outcome, sendEmail, start, startEvents, types, user, variant, when, workflow } from './testing/run-builders';
import { INTERPRETER_REVISION } from './interpreter-revision';
import { RunContext } from './run-context';
import { StartRun } from './run-inputs';

const run = (node: WorkflowNode, over: Partial<StartRun> = {}) => startEvents(workflow([node]), over);
const requested = (node: WorkflowNode, over: Partial<StartRun> = {}) => ofType(run(node, over), 'delivery.requested.v1');
const skipped = (node: WorkflowNode, over: Partial<StartRun> = {}) => ofType(run(node, over), 'delivery.skipped.v1');
const node = (over: Record<string, unknown>): WorkflowNode => ({ name: 'Send', template: 'welcome', ...over }) as WorkflowNode;

describe('send nodes', () => {
  it('given a send_email node, then it requests exactly the DeliveryRequested payload', () => {
    const events = run(sendEmail(), { recipient: user({ channels: { email: ['ada@example.com'] }, timezone: 'Europe/Paris' }), tenant_id: 'acme' });
    const delivery: DeliveryRequested = {
      delivery_id: 'run-1:delivery:0:email',
      run_id: 'run-1',
      message_id: 'msg-1',
      workspace_slug: 'staging',
      workflow: { slug: 'welcome', version: 3 },
      node_name: 'Email',
      channel: 'email',
      recipient: { kind: 'user', distinct_id: 'u1', locale: 'en', timezone: 'Europe/Paris' },
      destination: { identities: ['ada@example.com'] },
      template: { slug: 'welcome', variant_id: 'default-email', locale: 'en', content: { subject: 'Hi {{name}}', html: '<p>Hello</p>' } },
      render_data: {
        order: { id: 'o-1', total: 42 },
        $recipient: { plan: 'pro', name: 'Ada', distinct_id: 'u1', $locale: 'en', $timezone: 'Europe/Paris' },
        $actor: {},
        $tenant: { tenant_id: 'acme' },
        $batched_events: [],
        $batched_events_count: 0,
      },
      tenant_id: 'acme',
      category: 'transactional',
      attachments: [],
      requested_at: T0.toISOString(),
    };
    expect(ofType(events, 'delivery.requested.v1')).toEqual([
      { type: 'delivery.requested.v1', path: [0], delivery, preference: { snapshot: {}, decision: { allowed: true, reason: 'no opt-out' } } },
    ]);
    expect(last(events).type).toBe('run.completed.v1');
  });

  describe('identities', () => {
    it('given identities inline, then they win over the stored ones', () => {
      expect(requested(sendEmail(), { recipient: user({ channels: { email: ['inline@example.com'] } }) })[0].delivery.destination.identities).toEqual(['inline@example.com']);
    });

    it('given none inline, then the stored profile gives them', () => {
      expect(requested(sendEmail())[0].delivery.destination.identities).toEqual(['stored@example.com']);
    });

    it('given none at all, then the channel is skipped and the run still completes', () => {
      const events = run(sendEmail(), { context: context({ recipient_profile: { properties: {}, channels: {} } }) });
      expect(ofType(events, 'delivery.skipped.v1')).toEqual([
        { type: 'delivery.skipped.v1', path: [0], channel: 'email', reason: 'no_identity', detail: 'the recipient has no email identity' },
      ]);
      expect(last(events).type).toBe('run.completed.v1');
    });

    it('given a known user without inbox ids, then the inbox goes to its distinct_id', () => {
      const ctx = context({ templates: { welcome: { slug: 'welcome', variants: [variant({ id: 'inbox', channel: 'inbox' })] } } });
      expect(requested(node({ node_type: 'send_inbox' }), { context: ctx })[0].delivery.destination.identities).toEqual(['u1']);
    });

    it('given an object recipient, then the delivery names the object', () => {
      const recipient = { kind: 'object' as const, object_type: 'teams', id: 'eng', inline: true, channels: { email: ['eng@example.com'] }, properties: {} };
      expect(requested(sendEmail(), { recipient })[0].delivery.recipient).toEqual({ kind: 'object', object_type: 'teams', id: 'eng', locale: 'en' });
    });
  });

  it('given mobile push, then both push channels are considered', () => {
    const ctx = context({
      recipient_profile: { properties: {}, channels: { androidpush: [{ token: 'a-token' }] } },
      templates: { welcome: { slug: 'welcome', variants: [variant({ id: 'push', channel: 'androidpush' }), variant({ id: 'ios', channel: 'iospush' })] } },
    });
    const events = run(node({ node_type: 'send_mobile_push' }), { context: ctx });
    expect(ofType(events, 'delivery.requested.v1').map((event) => event.delivery.channel)).toEqual(['androidpush']);
    expect(ofType(events, 'delivery.skipped.v1').map((event) => [event.channel, event.reason])).toEqual([['iospush', 'no_identity']]);
  });

  describe('multi-channel', () => {
    const everywhere: RunContext = context({
      recipient_profile: { properties: {}, channels: { email: ['a@example.com'], sms: ['+331234'], slack: [{ form: 'incoming_webhook', incoming_webhook: { url: 'https://hooks.slack.com/x' } }] } },
      templates: { welcome: { slug: 'welcome', variants: ['email', 'sms', 'slack'].map((channel) => variant({ id: channel, channel: channel as 'email' })) } },
    });
    const multi = (over: Record<string, unknown> = {}) => node({ node_type: 'send_multi_channel', channels: ['email', 'sms', 'slack'], ...over });

    it('given three reachable channels, then one delivery per channel with its own id', () => {
      expect(requested(multi(), { context: everywhere }).map((event) => event.delivery.delivery_id)).toEqual([
        'run-1:delivery:0:email',
        'run-1:delivery:0:sms',
        'run-1:delivery:0:slack',
      ]);
    });

    it('given the recipient restricts $channels, then the other channels are skipped', () => {
      const events = run(multi(), { context: everywhere, recipient: user({ only_channels: ['sms'] }) });
      expect(ofType(events, 'delivery.requested.v1').map((event) => event.delivery.channel)).toEqual(['sms']);
      expect(ofType(events, 'delivery.skipped.v1').map((event) => [event.channel, event.reason, event.detail])).toEqual([
        ['email', 'not_in_recipient_channels', '$channels is sms'],
        ['slack', 'not_in_recipient_channels', '$channels is sms'],
      ]);
    });

    it('given an opt-out of one channel, then that channel is skipped with the policy reason', () => {
      const events = run(multi(), { context: { ...everywhere, preferences: { opted_out_channels: ['sms'] } } });
      expect(ofType(events, 'delivery.skipped.v1')).toEqual([{ type: 'delivery.skipped.v1', path: [0], channel: 'sms', reason: 'preference', detail: 'opted out of sms' }]);
      expect(ofType(events, 'delivery.requested.v1')[0].preference).toEqual({ snapshot: { opted_out_channels: ['sms'] }, decision: { allowed: true, reason: 'no opt-out' } });
    });

    it('given channels_expr, then the channels come from jq', () => {
      expect(requested(multi({ channels_expr: '.channels' }), { context: everywhere, data: { channels: ['slack', 'email'] } }).map((event) => event.delivery.channel)).toEqual([
        'slack',
        'email',
      ]);
    });

    it('given channels_expr yielding something else than channels, then the run fails', () => {
      expect(last(run(multi({ channels_expr: '.channels' }), { data: { channels: ['pigeon'] } }))).toMatchObject({
        type: 'run.failed.v1',
        reason: expect.stringContaining('channels_expr gave "pigeon", not a channel'),
      });
    });
  });

  describe('smart channel routing', () => {
    const ctx = context({
      recipient_profile: { properties: {}, channels: { sms: ['+331234'], email: ['a@example.com'], inbox: ['inbox-1'] } },
      templates: { welcome: { slug: 'welcome', variants: ['email', 'sms', 'inbox'].map((channel) => variant({ id: channel, channel: channel as 'email' })) } },
    });

    it('sends on the mandatory channels and on the first available routed channel', () => {
      const smart = node({ node_type: 'send_smart_channel_routing', channels: ['whatsapp', 'sms', 'email', 'inbox'], mandatory_channels: ['inbox'] });
      const events = run(smart, { context: ctx });
      expect(ofType(events, 'delivery.requested.v1').map((event) => event.delivery.channel)).toEqual(['inbox', 'sms']);
      expect(ofType(events, 'delivery.skipped.v1').map((event) => [event.channel, event.reason, event.detail])).toEqual([
        ['whatsapp', 'no_identity', 'the recipient has no whatsapp identity'],
        ['email', 'not_routed', 'smart routing sent on sms'],
      ]);
    });

    describe('fallback when the routed channel fails for good', () => {
      const smart = node({ node_type: 'send_smart_channel_routing', channels: ['email', 'sms', 'inbox'] });
      const started = [[start(workflow([smart]), { context: ctx, interpreter_revision: INTERPRETER_REVISION }), T0]] as const;
      const withContext = (input: ReturnType<typeof outcome>) => ({ ...input, context: ctx });
      const bounced = withContext(outcome('run-1:delivery:0:email', { status: 'bounced', error: { message: 'sendgrid: bounce', retryable: false } }));

      it('given a bounce of the routed email, then the outcome is recorded and sms, the next channel, is sent', () => {
        const events = when(started, bounced, at(60_000));
        expect(types(events)).toEqual(['delivery.outcome_recorded.v1', 'delivery.requested.v1']);
        expect(ofType(events, 'delivery.requested.v1')[0].delivery).toMatchObject({ delivery_id: 'run-1:delivery:0:sms', channel: 'sms', destination: { identities: ['+331234'] } });
      });

      it('given a delivery_failure, then it falls back too; a second failure status of the same delivery does not fall back again', () => {
        const failed = withContext(outcome('run-1:delivery:0:email', { status: 'delivery_failure' }));
        expect(ofType(when(started, failed), 'delivery.requested.v1').map((e) => e.delivery.channel)).toEqual(['sms']);
        expect(types(when([...started, [failed, T0]], bounced))).toEqual(['delivery.outcome_recorded.v1']);
      });

      it('given the fallback channel fails too, then the next one is sent; given the last fails, nothing more', () => {
        const smsFailed = withContext(outcome('run-1:delivery:0:sms', { channel: 'sms', status: 'delivery_failure' }));
        expect(ofType(when([...started, [bounced, T0]], smsFailed), 'delivery.requested.v1').map((e) => e.delivery.channel)).toEqual(['inbox']);
        const inboxFailed = withContext(outcome('run-1:delivery:0:inbox', { channel: 'inbox', status: 'delivery_failure' }));
        expect(types(when([...started, [bounced, T0], [smsFailed, T0]], inboxFailed))).toEqual(['delivery.outcome_recorded.v1']);
      });

      it('given the bounce comes after the vendor accepted the email, when the run has completed, then sms is sent (a node with success and ttl_value does not wait)', () => {
        const waiting = node({ node_type: 'send_smart_channel_routing', channels: ['email', 'sms'], success: 'delivered', ttl_value: '0d1h0m0s' });
        const completed = [[start(workflow([waiting]), { context: ctx, interpreter_revision: INTERPRETER_REVISION }), T0]] as const;
        expect(types(given(completed).events).slice(-1)).toEqual(['run.completed.v1']);
        const accepted = withContext(outcome('run-1:delivery:0:email', { status: 'sent_by_vendor' }));
        expect(ofType(when([...completed, [accepted, T0]], bounced, at(60_000)), 'delivery.requested.v1').map((e) => e.delivery.delivery_id)).toEqual(['run-1:delivery:0:sms']);
      });

      it('given the next channel has no variant the run may send (an sms pending vendor approval is not loaded), then nothing is sent', () => {
        const noSms = { ...ctx, templates: { welcome: { slug: 'welcome', variants: [variant({ id: 'email', channel: 'email' })] } } };
        const onlyEmail = [[start(workflow([node({ node_type: 'send_smart_channel_routing', channels: ['email', 'sms'] })]), { context: noSms, interpreter_revision: INTERPRETER_REVISION }), T0]] as const;
        expect(types(when(onlyEmail, { ...bounced, context: noSms }))).toEqual(['delivery.outcome_recorded.v1']);
      });

      it('given success statuses, a mandatory channel failing, or a run of an older interpreter revision, then nothing is sent', () => {
        expect(types(when(started, withContext(outcome('run-1:delivery:0:email', { status: 'delivered' }))))).toEqual(['delivery.outcome_recorded.v1']);
        const withMandatory = node({ node_type: 'send_smart_channel_routing', channels: ['email', 'sms'], mandatory_channels: ['inbox'] });
        const inboxFailed = withContext(outcome('run-1:delivery:0:inbox', { channel: 'inbox', status: 'delivery_failure' }));
        expect(types(when([[start(workflow([withMandatory]), { context: ctx, interpreter_revision: INTERPRETER_REVISION }), T0]], inboxFailed))).toEqual(['delivery.outcome_recorded.v1']);
        expect(types(when([[start(workflow([smart]), { context: ctx, interpreter_revision: 3 }), T0]], bounced))).toEqual(['delivery.outcome_recorded.v1']);
      });
    });
  });

  describe('variant selection', () => {
    const variants = [
      variant({ id: 'en', locale: 'en', seq_no: 1 }),
      variant({ id: 'pt', locale: 'pt', seq_no: 1 }),
      variant({ id: 'pt-BR', locale: 'pt-BR', seq_no: 1 }),
      variant({ id: 'acme-en', tenant_id: 'acme', locale: 'en', seq_no: 1 }),
      variant({ id: 'acme-fr', tenant_id: 'acme', locale: 'fr', seq_no: 1 }),
      variant({ id: 'vip-en', locale: 'en', seq_no: 0, conditions: [{ type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '$recipient', variable: 'plan', op: '==', value: 'vip' }] } }] }),
      variant({ id: 'sms', channel: 'sms', locale: 'en' }),
    ];
    const chosen = (locale: string | undefined, tenant_id?: string, plan = 'pro') =>
      requested(sendEmail(), {
        recipient: user({ ...(locale === undefined ? {} : { locale }), properties: { plan } }),
        ...(tenant_id === undefined ? {} : { tenant_id }),
        context: context({ templates: { welcome: { slug: 'welcome', variants } }, recipient_profile: { properties: {}, channels: { email: ['a@example.com'] } } }),
      })[0]?.delivery.template.variant_id;

    it.each([
      ['exact tenant and locale', 'fr', 'acme', 'acme-fr'],
      ['tenant and language', 'fr-CA', 'acme', 'acme-fr'],
      ['tenant and default locale', 'de', 'acme', 'acme-en'],
      ['no tenant, exact locale', 'pt-BR', 'globex', 'pt-BR'],
      ['no tenant, exact locale written with an underscore', 'pt_br', undefined, 'pt-BR'],
      ['no tenant, language', 'pt-PT', undefined, 'pt'],
      ['no tenant, default locale', 'de', undefined, 'en'],
      ['no locale at all', undefined, undefined, 'en'],
    ])('picks %s', (_label, locale, tenant, expected) => {
      expect(chosen(locale, tenant)).toBe(expected);
    });

    it('takes a variant whose conditions hold before a later seq_no, and passes over it otherwise', () => {
      expect(chosen('en', undefined, 'vip')).toBe('vip-en');
      expect(chosen('en', undefined, 'pro')).toBe('en');
    });

    it('given no variant for the channel, then the channel is skipped', () => {
      const events = run(sendEmail(), { context: context({ templates: {} }) });
      expect(ofType(events, 'delivery.skipped.v1')).toEqual([
        { type: 'delivery.skipped.v1', path: [0], channel: 'email', reason: 'no_variant', detail: 'template welcome has no live email variant for this tenant and locale' },
      ]);
    });
  });

  it('given an opt-out of the workflow category, then the channel is skipped', () => {
    expect(skipped(sendEmail(), { context: context({ preferences: { opted_out_categories: ['transactional'] } }) })).toEqual([
      { type: 'delivery.skipped.v1', path: [0], channel: 'email', reason: 'preference', detail: 'opted out of category transactional' },
    ]);
  });
});
