import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';

/** A vendor's API on loopback: records each request's body and answers the next scripted reply (else the fallback). */
class VendorServer {
  readonly requests: Array<{ path: string; body: string }> = [];
  private readonly replies: Array<{ status: number; body: unknown }> = [];
  private readonly server: Server;

  private constructor(private readonly fallback: { status: number; body: unknown }) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        const reply = this.replies.shift() ?? this.fallback;
        response.writeHead(reply.status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(reply.body));
      });
    });
  }

  static async start(fallback: { status: number; body: unknown }): Promise<VendorServer> {
    const vendor = new VendorServer(fallback);
    await new Promise<void>((resolve) => vendor.server.listen(0, '127.0.0.1', resolve));
    return vendor;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  respond(reply: { status: number; body: unknown }): void {
    this.replies.push(reply);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface MessageRow {
  readonly channel: string;
  readonly status: string;
  readonly failure_reason?: string | null;
}

/**
 * A vendor's bounce reaching a running Herald (issue 42), end to end: a smart-routing node
 * (email, then sms, until `delivered`) sends through a local server speaking Postmark's
 * API; the test posts Postmark's bounce callback (its basic-auth credentials), and the run
 * sends the sms. The next trigger skips the bounced address (suppressed: the sms goes at
 * once) and the management API lists it; removed through the API, the next email goes out.
 */
describe('vendor receipts in a running Herald', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const ADDRESS = 'Ada.Bounce@example.com';
  const PHONE = '+14155550111';
  let herald: EmbeddedHerald;
  let dataDir: string;
  let postmark: VendorServer;
  let twilio: VendorServer;
  let postmarkId: string;

  const management = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ok = async (call: Promise<{ status: number; body: unknown }>): Promise<unknown> => {
    const answer = await call;
    expect({ success: answer.status >= 200 && answer.status < 300, body: answer.body }).toMatchObject({ success: true });
    return answer.body;
  };
  const api = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const trigger = async (): Promise<string> => {
    const answer = await api('POST', 'trigger/', { workflow: 'reach-ada', recipients: [{ distinct_id: 'ada' }], data: { code: '1234' } });
    expect(answer.status).toBe(202);
    return (answer.body as { message_id: string }).message_id;
  };
  const messagesOf = async (messageId: string): Promise<MessageRow[]> => ((await ok(api('GET', `v1/message/?message_id=${messageId}`))) as { results: MessageRow[] }).results;
  const statusesOf = async (messageId: string): Promise<string[]> => (await messagesOf(messageId)).map((row) => `${row.channel} ${row.status}`).sort();
  const dispatchSuppressions = async (): Promise<number> => {
    const client = new Client({ connectionString: herald.databaseUrl });
    await client.connect();
    try {
      return (await client.query(`SELECT count(*)::int AS n FROM dispatch.suppressions WHERE address = $1`, [ADDRESS.toLowerCase()])).rows[0].n as number;
    } finally {
      await client.end();
    }
  };
  const postmarkBounce = (messageId: string, password: string) =>
    fetch(`${herald.baseUrl}v1/vendor-callbacks/${postmarkId}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`herald:${password}`).toString('base64')}` },
      // Postmark's Bounce webhook (its documented sample, this message's id and address).
      body: JSON.stringify({
        RecordType: 'Bounce',
        ID: 4323372036854775807,
        Type: 'HardBounce',
        TypeCode: 1,
        Name: 'Hard bounce',
        MessageID: messageId,
        MessageStream: 'outbound',
        Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
        Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
        Email: ADDRESS,
        From: 'shop@example.com',
        BouncedAt: '2026-03-01T10:00:00Z',
        Inactive: true,
        CanActivate: true,
        Subject: 'Your code',
      }),
    });

  beforeAll(async () => {
    [postmark, twilio] = await Promise.all([VendorServer.start({ status: 200, body: { ErrorCode: 0, Message: 'OK', MessageID: 'pm-fallback' } }), VendorServer.start({ status: 201, body: { sid: 'SM-fallback' } })]);
    dataDir = mkdtempSync(join(tmpdir(), 'herald-vendor-receipts-'));
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_OUTBOUND_ALLOW: '127.0.0.1/32',
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    await ok(management('PUT', 'v1/staging/vendor/email/postmark/', { priority: 1, base_url: postmark.url, credentials: { server_token: 'pm-server-token', webhook_username: 'herald', webhook_password: 'pm-hook-password' } }));
    await ok(management('PUT', 'v1/staging/vendor/sms/twilio/', { priority: 1, base_url: twilio.url, credentials: { account_sid: `AC${'b'.repeat(32)}`, auth_token: 'tw-token', from: '+14155550100' } }));
    const vendors = (await ok(management('GET', 'v1/staging/vendor/'))) as { results: Array<{ id: string; channel: string; vendor: string }> };
    postmarkId = vendors.results.find((vendor) => vendor.vendor === 'postmark')?.id ?? '';
    await ok(management('POST', 'v2/staging/template/reach-code/', { name: 'Code', enabled_channels: ['email', 'sms'] }));
    await ok(management('POST', 'v2/staging/template/reach-code/channel/email/variant/default/', { locale: 'en', content: { subject: 'Your code', text: 'Your code is {{code}}.', from: 'shop@example.com' } }));
    // An sms variant needs the vendor's approval (DLT) unless told otherwise, and a run sends none pending it: without this the fallback had no sms to send.
    await ok(management('POST', 'v2/staging/template/reach-code/channel/sms/variant/default/', { locale: 'en', needs_vendor_approval: false, content: { text: 'Your code is {{code}}' } }));
    await ok(management('PATCH', 'v2/staging/template/reach-code/commit/?commit_message=t'));
    // Ada's channels on her profile: the run reads them when it starts and again when an outcome makes it fall back.
    await ok(api('POST', 'v1/user/ada/', { $email: [ADDRESS], $sms: [PHONE] }));
    await ok(
      management('POST', 'v1/staging/workflow/reach-ada/?commit=true&commit_message=first', {
        name: 'Reach Ada',
        category: 'transactional',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Reach', node_type: 'send_smart_channel_routing', template: 'reach-code', channels: ['email', 'sms'], success: 'delivered', ttl_value: '0d1h0m0s' }] },
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await herald?.stop();
    await Promise.all([postmark?.close(), twilio?.close()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a bounce moves the run to sms and suppresses the address; the next trigger skips it; removed through the API, the next email goes out', async () => {
    // 1. Email first: Postmark accepts it; nothing goes to sms while the node waits for `delivered`.
    postmark.respond({ status: 200, body: { ErrorCode: 0, Message: 'OK', MessageID: 'pm-e2e-1' } });
    const first = await trigger();
    // The message log rides along, so a failure shows where the email stopped.
    await expectEventually(async () => expect({ postmark: postmark.requests.length, log: await statusesOf(first) }).toEqual({ postmark: 1, log: ['email sent_by_vendor'] }), { timeoutMs: 60_000 });
    expect(JSON.parse(postmark.requests[0].body)).toMatchObject({ To: ADDRESS, Subject: 'Your code' });
    expect(twilio.requests).toHaveLength(0);

    // 2. Postmark's bounce, forged then as Postmark sends it: the run reacts to the real one only.
    expect((await postmarkBounce('pm-e2e-1', 'guessed')).status).toBe(401);
    const bounce = await postmarkBounce('pm-e2e-1', 'pm-hook-password');
    expect([bounce.status, await bounce.json()]).toEqual([200, { received: 1, recorded: 1 }]);
    await expectEventually(async () => expect({ twilio: twilio.requests.length, log: await statusesOf(first) }).toEqual({ twilio: 1, log: ['email bounced', 'sms sent_by_vendor'] }), {
      timeoutMs: 60_000,
    });
    expect(Object.fromEntries(new URLSearchParams(twilio.requests[0].body))).toMatchObject({ To: PHONE, Body: 'Your code is 1234' });

    // 3. The management API lists the bounce (the dispatchers announced it).
    const listed = async () => (await ok(management('GET', `v1/staging/suppression/?channel=email&address=${encodeURIComponent(ADDRESS)}`))) as { results: Array<Record<string, unknown>> };
    await expectEventually(async () => expect((await listed()).results).toEqual([
      { channel: 'email', address: ADDRESS.toLowerCase(), reason: 'hard_bounce', detail: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.', vendor: 'email/postmark', created_at: expect.any(String) },
    ]), { timeoutMs: 30_000 });

    // 4. The next trigger skips the address: no call to Postmark, the sms at once.
    const second = await trigger();
    await expectEventually(() => expect(twilio.requests).toHaveLength(2), { timeoutMs: 60_000 });
    expect(postmark.requests).toHaveLength(1);
    const skipped = (await messagesOf(second)).find((row) => row.channel === 'email');
    expect(skipped).toMatchObject({ status: 'delivery_failure', failure_reason: expect.stringContaining(`suppressed: ${ADDRESS} is on the workspace's suppression list (hard_bounce`) });

    // 5. Removed through the API: once the dispatchers applied it, the next email goes out.
    expect((await management('DELETE', `v1/staging/suppression/email/${encodeURIComponent(ADDRESS)}/`)).status).toBe(204);
    expect((await listed()).results).toEqual([]);
    await expectEventually(async () => expect(await dispatchSuppressions()).toBe(0), { timeoutMs: 30_000 });
    postmark.respond({ status: 200, body: { ErrorCode: 0, Message: 'OK', MessageID: 'pm-e2e-3' } });
    await trigger();
    await expectEventually(() => expect(postmark.requests).toHaveLength(2), { timeoutMs: 60_000 });
    expect(twilio.requests).toHaveLength(2);
  });
});
