import MailComposer from 'nodemailer/lib/mail-composer';
import { EmailMessage, composeMessage } from './mime-message';

/** What nodemailer composes for the same mail (the composer Herald used for every message before). */
async function nodemailerMessage(mail: EmailMessage, date: Date): Promise<{ raw: string; envelope: { from: string | false; to: string[] } }> {
  const node = new MailComposer({ ...mail, attachments: mail.attachments?.map((attachment) => ({ ...attachment })), date }).compile();
  return { raw: (await node.build()).toString('utf8'), envelope: node.getEnvelope() };
}

/** Boundaries are random per message; name them in order of appearance. */
const sameBoundaries = (raw: string): string => {
  const names = new Map<string, string>();
  return raw.replace(/boundary="([^"]+)"/g, (_all, boundary: string) => {
    names.set(boundary, `BOUNDARY${names.size}`);
    return `boundary="BOUNDARY${names.size - 1}"`;
  }).replace(/--([^\s"]+?)(--)?\r\n/g, (all, boundary: string, end = '') => (names.has(boundary) ? `--${names.get(boundary)}${end}\r\n` : all));
};

describe('composeMessage', () => {
  const date = new Date('2026-11-27T12:00:00Z');
  const base: EmailMessage = { from: 'Acme <noreply@acme.test>', to: 'ada@example.com', subject: 'Welcome Ada', text: 'Hi Ada', html: '<p>Hi Ada</p>', messageId: '<idem-1@herald>' };

  it.each<[string, Partial<EmailMessage>]>([
    ['text and HTML', {}],
    ['text only', { html: undefined }],
    ['HTML only', { text: undefined }],
    ['neither', { text: undefined, html: undefined }],
    ['text only, quoted-printable, ending in a line break', { html: undefined, text: 'Grüße aus Köln\r\n' }],
    ['HTML only, base64', { text: undefined, html: '<p>Привет, Ада</p>' }],
    ['a reply-to and a sender name to quote', { from: 'Acme, Inc. <noreply@acme.test>', replyTo: 'Support <help@acme.test>' }],
    ['a sender name and subject in other scripts', { from: 'Ärzte Grüße <noreply@acme.test>', subject: 'Grüße, Ада! Ваш план: 日本語のテキスト' }],
    ['a long subject', { subject: 'A subject that goes on and on '.repeat(6) }],
    ['accented text (quoted-printable)', { text: 'Grüße aus Köln, schöne Grüße und einen guten Tag', html: '<p>Grüße aus Köln</p>' }],
    ['Cyrillic text (base64)', { text: 'Привет, Ада! Ваш план: про', html: '<p>Привет</p>' }],
    ['lines longer than 76 characters', { text: 'word '.repeat(40), html: `<p>${'x'.repeat(200)}</p>` }],
    ['lines starting with a dot', { text: '.hidden\r\n..two\r\n.', html: '<p>\r\n.</p>' }],
    ['a recipient with a name', { to: 'Ada Lovelace <ada@example.com>' }],
  ])('writes the same message as nodemailer: %s', async (_case, change) => {
    const mail = { ...base, ...change };
    const ours = await composeMessage(mail, date);
    const theirs = await nodemailerMessage(mail, date);
    expect(sameBoundaries(ours.bytes.toString('utf8'))).toBe(sameBoundaries(theirs.raw));
    expect(ours.envelope).toEqual({ from: theirs.envelope.from, to: theirs.envelope.to });
  });

  it('gives every message a boundary of its own', async () => {
    const boundaries = await Promise.all([1, 2].map(async () => (await composeMessage(base, date)).bytes.toString().match(/boundary="([^"]+)"/)?.[1]));
    expect(boundaries[0]).not.toBe(boundaries[1]);
  });

  it('has nodemailer compose a message with attachments', async () => {
    const pdf = Buffer.from('%PDF-1.4 invoice');
    const mail = { ...base, attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf }] };
    const ours = await composeMessage(mail, date);
    expect(ours.bytes.toString()).toMatch(/Content-Type: multipart\/mixed/);
    expect(ours.bytes.toString()).toContain(pdf.toString('base64'));
    expect(ours.envelope).toEqual({ from: 'noreply@acme.test', to: ['ada@example.com'] });
  });
});
