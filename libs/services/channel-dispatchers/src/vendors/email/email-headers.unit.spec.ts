import { EmailContent } from '@herald/rendering';
import { HttpPort, HttpRequest } from '../http/http.port';
import { ChannelVendor, SendRequest, VendorConfig } from '../vendor.port';
import { MailgunVendor, PostmarkVendor, ResendVendor, SendgridVendor } from './http-email-vendors';
import { composeMessage } from './mime-message';

const UNSUBSCRIBE = { 'List-Unsubscribe': '<https://notify.example.com/v1/unsubscribe/AbC-123_x>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
const content: EmailContent = { channel: 'email', subject: 'Sale', html: '<p>hi</p>', text: 'hi', headers: UNSUBSCRIBE };

/** An HttpPort that keeps each request and answers as the vendor does on success. */
class RecordingHttp implements HttpPort {
  readonly requests: HttpRequest[] = [];
  async request(request: HttpRequest) {
    this.requests.push(request);
    return { status: request.url.includes('sendgrid') ? 202 : 200, headers: { 'x-message-id': 'sg-1' }, body: '{"id":"m-1","MessageID":"m-1"}' };
  }
  async getBytes(): Promise<never> {
    throw new Error('not used');
  }
  close(): void {}
}

function send(vendor: ChannelVendor, http: RecordingHttp, baseUrl: string, credentials: Record<string, string>): Promise<HttpRequest> {
  const config: VendorConfig = { id: 'v1', channel: 'email', vendor: vendor.vendor, priority: 1, baseUrl, settings: { from: 'shop@example.com' }, credentials, version: 1 };
  const request: SendRequest = { deliveryId: 'd-1', workspaceId: 'w-1', content, identity: 'ada@example.com', config, idempotencyKey: 'k-1' };
  return vendor.send(request).then((result) => {
    expect(result.ok).toBe(true);
    return http.requests[http.requests.length - 1];
  });
}

describe('every email vendor sends the List-Unsubscribe headers', () => {
  it('SMTP writes them into the message, one line each, and drops a header that would inject another', async () => {
    const composed = await composeMessage({ from: 'shop@example.com', to: 'ada@example.com', subject: 'Sale', html: '<p>hi</p>', messageId: '<k@herald>', headers: UNSUBSCRIBE });
    const head = composed.bytes.toString('utf8').split('\r\n\r\n')[0];
    expect(head).toContain('\r\nList-Unsubscribe: <https://notify.example.com/v1/unsubscribe/AbC-123_x>\r\n');
    expect(head).toContain('\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n');
    const injected = await composeMessage({ from: 'a@example.com', to: 'b@example.com', subject: 's', text: 't', messageId: '<k@herald>', headers: { 'X-Ok': 'v\r\nBcc: evil@example.com', 'Bad Name': 'v' } });
    expect(injected.bytes.toString('utf8')).not.toMatch(/Bcc:|Bad Name|X-Ok/);
  });

  it('SMTP with attachments (composed by nodemailer) writes them too', async () => {
    const composed = await composeMessage({
      from: 'shop@example.com',
      to: 'ada@example.com',
      subject: 'Sale',
      text: 'hi',
      messageId: '<k@herald>',
      headers: UNSUBSCRIBE,
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') }],
    });
    const head = composed.bytes.toString('utf8').split('\r\n\r\n')[0].split('\r\n');
    expect(head).toEqual(expect.arrayContaining(['List-Unsubscribe: <https://notify.example.com/v1/unsubscribe/AbC-123_x>', 'List-Unsubscribe-Post: List-Unsubscribe=One-Click']));
  });

  it('SendGrid in `headers`', async () => {
    const http = new RecordingHttp();
    const request = await send(new SendgridVendor(http), http, 'https://api.sendgrid.com', { api_key: 'SG.x' });
    expect(JSON.parse(String(request.body)).headers).toEqual(UNSUBSCRIBE);
  });

  it('Mailgun as `h:` form fields', async () => {
    const http = new RecordingHttp();
    const request = await send(new MailgunVendor(http), http, 'https://api.mailgun.net', { api_key: 'key', domain: 'mg.example.com' });
    const form = new URLSearchParams(String(request.body));
    expect(form.get('h:List-Unsubscribe')).toBe(UNSUBSCRIBE['List-Unsubscribe']);
    expect(form.get('h:List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
  });

  it('Postmark in `Headers`', async () => {
    const http = new RecordingHttp();
    const request = await send(new PostmarkVendor(http), http, 'https://api.postmarkapp.com', { server_token: 'token' });
    expect(JSON.parse(String(request.body)).Headers).toEqual([
      { Name: 'List-Unsubscribe', Value: UNSUBSCRIBE['List-Unsubscribe'] },
      { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
    ]);
  });

  it('Resend in `headers`', async () => {
    const http = new RecordingHttp();
    const request = await send(new ResendVendor(http), http, 'https://api.resend.com', { api_key: 're_x' });
    expect(JSON.parse(String(request.body)).headers).toEqual(UNSUBSCRIBE);
  });
});
