import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';

const root = join(__dirname, '..', '..', '..');

/** The `sh` code blocks of the quickstart from step 2 on, in order: what a reader pastes into the terminal that talks to Herald. */
function quickstartCommands(): string[] {
  const markdown = readFileSync(join(root, 'docs', 'quickstart.md'), 'utf8');
  const fromStep2 = markdown.slice(markdown.indexOf('## 2.'));
  return shBlocks(fromStep2);
}

/** Every `sh` code block of docs/reference.md, in order: they run in the quickstart's terminal, after it. */
function referenceCommands(): string[] {
  return shBlocks(readFileSync(join(root, 'docs', 'reference.md'), 'utf8'));
}

function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

/**
 * docs/quickstart.md, run as written (issue 18): its curl commands against an embedded
 * Herald, with this test's credentials and ports substituted, deliver the email to a
 * local SMTP server and the message to the inbox.
 */
describe('the quickstart', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const mails: string[] = [];
  let smtp: SMTPServer;
  let herald: EmbeddedHerald;
  let dataDir: string;
  let workDir: string;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      onAuth: (auth, _session, done) => done(null, { user: auth.username }),
      onData: (stream, _session, done) => {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          mails.push(raw);
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    dataDir = mkdtempSync(join(tmpdir(), 'herald-quickstart-'));
    workDir = mkdtempSync(join(tmpdir(), 'herald-quickstart-shell-'));
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
        HERALD_LOG_LEVEL: 'error',
      }),
    );
  });

  afterAll(async () => {
    await herald?.stop();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
    for (const dir of [dataDir, workDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The blocks as one bash script, with this test's credentials and ports, run in the reader's working directory. */
  const runAsWritten = async (blocks: readonly string[]): Promise<string> => {
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const script = [
      'set -euo pipefail',
      ...blocks.map((block) =>
        block
          .replace('hst_your_service_token', serviceToken)
          .replace('hak_your_api_key', apiKey)
          .replaceAll('http://127.0.0.1:3001', herald.managementUrl.replace(/\/$/, ''))
          .replaceAll('http://127.0.0.1:3000', herald.baseUrl.replace(/\/$/, ''))
          .replaceAll('"port": 2525', `"port": ${smtpPort}`),
      ),
    ].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: workDir, env: { PATH: process.env.PATH, NODE_PATH: join(root, 'node_modules') } });
    return stdout;
  };

  it('sends the email to the local SMTP server and the message to the inbox, following the commands as written', async () => {
    const commands = quickstartCommands();
    expect(commands.length).toBeGreaterThanOrEqual(6);
    const stdout = await runAsWritten(commands);
    const messageId = (JSON.parse(readFileSync(join(workDir, 'trigger.json'), 'utf8')) as { message_id: string }).message_id;
    expect(stdout).toContain(messageId);

    await expectEventually(() => expect(mails).toEqual([expect.stringMatching(/^Subject: Welcome, Ada!/m)]), { timeoutMs: 30_000 });
    expect(mails[0]).toContain('Hi Ada, your plan is pro.');
    await expectEventually(async () => {
      const inbox = await fetchJson(`${herald.baseUrl}v1/user/ada/inbox/`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(JSON.stringify(inbox.body)).toContain('Hi Ada, your plan is pro.');
    });
    // The message log follows the outcomes, which arrive after the deliveries.
    await expectEventually(async () => {
      const log = await fetchJson(`${herald.baseUrl}v1/message/?message_id=${messageId}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect((log.body as { results: Array<{ channel: string; status: string }> }).results.map((m) => `${m.channel}/${m.status}`).sort()).toEqual([
        'email/sent_by_vendor',
        'inbox/delivered',
      ]);
    });
  });

  it("runs docs/reference.md's commands after it: sending again with a new idempotency key sends the email again", async () => {
    const mailsBefore = mails.length;
    expect(mailsBefore).toBe(1);
    const commands = referenceCommands();
    expect(commands.length).toBeGreaterThanOrEqual(1);
    // The quickstart's variables (step 2's first block), then the reference's commands.
    const stdout = await runAsWritten([quickstartCommands()[0], ...commands]);
    // The failed messages' list answers (empty here: the quickstart's email went out).
    expect(stdout).toContain('"results":[]');
    await expectEventually(() => expect(mails).toEqual([expect.stringMatching(/^Subject: Welcome, Ada!/m), expect.stringMatching(/^Subject: Welcome, Ada!/m)]), { timeoutMs: 30_000 });
    await expectEventually(async () => {
      const log = await fetchJson(`${herald.baseUrl}v1/message/?idempotency_key=welcome-ada-again`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect((log.body as { results: Array<{ channel: string; status: string }> }).results.map((m) => `${m.channel}/${m.status}`).sort()).toEqual(['email/sent_by_vendor', 'inbox/delivered']);
    });
  });
});
