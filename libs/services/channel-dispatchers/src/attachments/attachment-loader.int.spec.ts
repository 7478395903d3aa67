import { RecordingServer } from '../testing/recording-server';
import { GuardedHttp } from '../vendors/http/guarded-http';
import { AttachmentLoader } from './attachment-loader';

describe('AttachmentLoader', () => {
  // The local file server listens on loopback, which the outbound rule refuses unless allowed.
  const allowed = new GuardedHttp(['127.0.0.0/8']);
  const strict = new GuardedHttp([]);
  let files: RecordingServer;
  beforeAll(async () => {
    files = await RecordingServer.start({ status: 404, body: 'no such file' });
  });
  afterAll(async () => {
    allowed.close();
    strict.close();
    await files.close();
  });

  it('fetches a URL attachment with its type and name, and decodes an inline one', async () => {
    files.respond({ status: 200, body: '%PDF-1.4 invoice', headers: { 'content-type': 'application/pdf; name=x' } });
    const result = await new AttachmentLoader(allowed).load([
      { kind: 'url', url: `${files.url}/files/invoice%202024.pdf?signature=s3cr3t`, ignore_if_error: false },
      { kind: 'inline', data: Buffer.from('a,b\n1,2').toString('base64'), size_bytes: 7, filename: 'data.csv', content_type: 'text/csv', ignore_if_error: false },
    ]);
    expect(result).toEqual({
      ok: true,
      attachments: [
        { filename: 'invoice 2024.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4 invoice') },
        { filename: 'data.csv', contentType: 'text/csv', content: Buffer.from('a,b\n1,2') },
      ],
    });
    expect(files.requests.at(-1)).toMatchObject({ method: 'GET', path: '/files/invoice%202024.pdf?signature=s3cr3t' });
  });

  it('skips a failing attachment marked ignore_if_error, and fails on one that is not, without the query in the reason', async () => {
    const loader = new AttachmentLoader(allowed);
    const missing = { kind: 'url' as const, url: `${files.url}/gone.pdf?token=s3cr3t`, filename: 'gone.pdf' };
    const inline = { kind: 'inline' as const, data: Buffer.from('ok').toString('base64'), size_bytes: 2, ignore_if_error: false };
    expect(await loader.load([{ ...missing, ignore_if_error: true }, inline])).toEqual({
      ok: true,
      attachments: [{ filename: 'attachment-2', contentType: 'application/octet-stream', content: Buffer.from('ok') }],
    });
    const failed = await loader.load([{ ...missing, ignore_if_error: false }, inline]);
    expect(failed).toEqual({ ok: false, reason: `attachment 1 (${files.url}/gone.pdf) could not be loaded: HTTP 404` });
    expect(await loader.load([{ ...inline, data: 'not base64!' }])).toEqual({ ok: false, reason: 'attachment 1 is not valid base64' });
  });

  it('refuses a URL on a private address the outbound rule does not allow, before connecting', async () => {
    const before = files.requests.length;
    const result = await new AttachmentLoader(strict).load([{ kind: 'url', url: `${files.url}/invoice.pdf`, ignore_if_error: false }]);
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/^attachment 1 \(http:\/\/127\.0\.0\.1:\d+\/invoice\.pdf\) could not be loaded: .*loopback/) });
    expect(files.requests.length).toBe(before);
  });
});
