import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { CHANNELS, Channel, HeraldError, VENDOR_TEST_MAX_AGE_MS, VENDOR_TEST_SEAL, VendorTestAnswer, VendorTestRequest } from '@herald/contracts';
import { RenderedContent } from '@herald/rendering';
import { CLOCK, Clock, HERALD_CONFIG, HeraldConfig, SecretBox } from '@herald/runtime';
import { InboxWrites } from '../inbox/inbox-writes';
import { DISPATCH_SECRET_BOX } from '../read-models/dispatch-secret-box';
import { HTTP_PORT, HttpPort } from '../vendors/http/http.port';
import { AddressGuard } from '../vendors/net/address-guard';
import { VendorRegistry } from '../vendors/vendor-registry';
import { CredentialValue, VendorConfig } from '../vendors/vendor.port';
import { RecordingHttp } from './recording-http';

const EXCERPT = 1_000;
const TEXT = 'This is a test message from Herald: the vendor configuration works.';

/** The one message a test sends, per channel. */
function testContent(channel: Channel): RenderedContent {
  switch (channel) {
    case 'email':
      return { channel, subject: 'Herald test message', text: TEXT, html: `<p>${TEXT}</p>` };
    case 'sms':
      return { channel, text: TEXT };
    case 'whatsapp':
      return { channel, kind: 'text', text: TEXT };
    case 'androidpush':
    case 'iospush':
      return { channel, title: 'Herald test message', body: TEXT, data: {} };
    case 'webpush':
      return { channel, title: 'Herald test message', body: TEXT };
    case 'slack':
    case 'ms_teams':
      return { channel, text: TEXT };
    case 'inbox':
      return { channel, title: 'Herald test message', body: TEXT };
  }
}

/**
 * Sends one test message through a vendor configuration, with the same adapters, address
 * rule (HERALD_OUTBOUND_ALLOW) and timeouts as deliveries, and reports what the vendor
 * answered. The request comes sealed from management-api (contracts/vendor-test.ts); the
 * configuration is the one management stores now, so a change is tested before the
 * dispatchers' read model has it. Each test has a registry of its own (its own SMTP pool,
 * closed after), over the module's HTTP port noting the vendor's response.
 */
@Injectable()
export class VendorTester {
  constructor(
    @Inject(DISPATCH_SECRET_BOX) private readonly box: SecretBox,
    @Inject(HTTP_PORT) private readonly http: HttpPort,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly inbox: InboxWrites,
  ) {}

  /** The request inside `sealed`, or a 401 when there is none, or it was not sealed with this installation's key, or is too old. */
  open(sealed: string | undefined): VendorTestRequest {
    let request: VendorTestRequest;
    try {
      if (sealed === undefined) throw new Error('no sealed request');
      request = JSON.parse(this.box.open(Buffer.from(sealed, 'base64'), VENDOR_TEST_SEAL)) as VendorTestRequest;
    } catch {
      throw new HeraldError('authentication_failed', 'a vendor test must be sealed by management-api with HERALD_SECRETS_KEY');
    }
    const age = this.clock.now().getTime() - request.issued_at;
    if (!(age < VENDOR_TEST_MAX_AGE_MS && age > -VENDOR_TEST_MAX_AGE_MS)) throw new HeraldError('authentication_failed', 'the vendor test request has expired');
    return request;
  }

  async send(request: VendorTestRequest): Promise<VendorTestAnswer> {
    const { vendor: document } = request;
    const channel = document.channel as Channel;
    if (!(CHANNELS as readonly string[]).includes(channel)) throw HeraldError.validation([{ path: 'channel', message: `unknown channel '${document.channel}'` }]);
    const recording = new RecordingHttp(this.http);
    const registry = new VendorRegistry(recording, new AddressGuard(this.config.outboundAllow), this.inbox);
    const vendor = registry.find(channel, document.vendor);
    if (!vendor) throw HeraldError.notFound(`the dispatchers have no adapter for '${channel}/${document.vendor}'`);
    const credentials = JSON.parse(this.box.open(Buffer.from(document.credentials_sealed, 'base64'), `vendor:${document.id}`)) as Record<string, CredentialValue>;
    const config: VendorConfig = {
      id: document.id,
      channel,
      vendor: document.vendor,
      priority: 1,
      baseUrl: document.base_url,
      settings: document.settings,
      credentials,
      version: document.version,
    };
    const deliveryId = randomUUID();
    const started = performance.now();
    try {
      const result = await vendor.send({
        deliveryId,
        workspaceId: request.workspace_id,
        recipientId: typeof request.to === 'string' ? request.to : undefined,
        content: testContent(channel),
        identity: request.to,
        config,
        idempotencyKey: deliveryId,
      });
      const answer = result.ok ? result.answer : undefined;
      const smtpCode = answer ? /^(\d{3})\b/.exec(answer) : null;
      return {
        ok: result.ok,
        channel,
        vendor: document.vendor,
        status: recording.last?.status ?? (smtpCode ? Number(smtpCode[1]) : null),
        body: (recording.last?.body ?? answer ?? null)?.slice(0, EXCERPT) ?? null,
        error: result.ok ? null : result.reason,
        retryable: result.ok ? null : result.retryable,
        vendor_message_id: result.ok ? (result.vendorMessageId ?? null) : null,
        duration_ms: Math.round(performance.now() - started),
      };
    } catch (error) {
      // A configuration the adapter cannot use (a missing field): what a delivery would record as permanent.
      return {
        ok: false,
        channel,
        vendor: document.vendor,
        status: recording.last?.status ?? null,
        body: recording.last?.body.slice(0, EXCERPT) ?? null,
        error: `${document.vendor}: ${error instanceof Error ? error.message : String(error)}`,
        retryable: false,
        vendor_message_id: null,
        duration_ms: Math.round(performance.now() - started),
      };
    } finally {
      registry.close();
    }
  }
}
