import { ReplyReader, SmtpReply, capabilitiesOf, dataBlock, decideEnvelope, transactionCommands } from './smtp-protocol';

const reply = (code: number, text = 'ok'): SmtpReply => ({ code, lines: [text] });

describe('ReplyReader', () => {
  it('reads multi-line replies and replies split across chunks', () => {
    const reader = new ReplyReader();
    expect(reader.push(Buffer.from('250-mail.test greets you\r\n250-PIPE'))).toEqual([]);
    expect(reader.push(Buffer.from('LINING\r\n250 SIZE 100\r\n354 go ahead\r\n2'))).toEqual([
      { code: 250, lines: ['mail.test greets you', 'PIPELINING', 'SIZE 100'] },
      { code: 354, lines: ['go ahead'] },
    ]);
    expect(reader.push(Buffer.from('21\r\n'))).toEqual([{ code: 221, lines: [''] }]);
  });

  it('refuses a line that is not a reply', () => {
    expect(() => new ReplyReader().push(Buffer.from('hello\r\n'))).toThrow(/invalid reply line/);
  });
});

describe('capabilitiesOf', () => {
  it('reads the extensions of an EHLO reply, AUTH in either form', () => {
    expect(capabilitiesOf({ code: 250, lines: ['mail.test', 'PIPELINING', '8BITMIME', 'SIZE 1000', 'STARTTLS', 'AUTH=PLAIN LOGIN', 'SMTPUTF8'] })).toEqual({
      pipelining: true,
      startTls: true,
      eightBitMime: true,
      smtpUtf8: true,
      maxSize: 1000,
      auth: ['PLAIN', 'LOGIN'],
    });
    expect(capabilitiesOf({ code: 250, lines: ['mail.test', 'SIZE'] })).toMatchObject({ pipelining: false, maxSize: 0, auth: [] });
  });
});

describe('transactionCommands', () => {
  const capabilities = capabilitiesOf({ code: 250, lines: ['mail.test', 'SIZE 100', '8BITMIME', 'SMTPUTF8'] });
  it('names the size, 8-bit content and UTF-8 addresses where the server offers them', () => {
    expect(transactionCommands({ from: 'a@acme.test', to: ['ada@example.com'] }, Buffer.from('ascii'), capabilities)).toEqual(['MAIL FROM:<a@acme.test> SIZE=5', 'RCPT TO:<ada@example.com>', 'DATA']);
    expect(transactionCommands({ from: 'a@acme.test', to: ['ädä@example.com'] }, Buffer.from('Grüße'), capabilities)[0]).toBe('MAIL FROM:<a@acme.test> SIZE=7 BODY=8BITMIME SMTPUTF8');
  });
  it('refuses an address that would break the command line, and a message over SIZE', () => {
    expect(() => transactionCommands({ from: 'a@acme.test', to: ['x@y.test>\r\nRCPT TO:<z@y.test'] }, Buffer.from('m'), capabilities)).toThrow(expect.objectContaining({ code: 'EENVELOPE' }));
    expect(() => transactionCommands({ from: 'a@acme.test', to: ['x@y.test'] }, Buffer.alloc(101), capabilities)).toThrow(expect.objectContaining({ code: 'EMESSAGE', responseCode: 552 }));
  });
});

describe('decideEnvelope', () => {
  it('sends the message to the recipients accepted', () => {
    expect(decideEnvelope(['a@x.test', 'b@x.test'], [reply(250), reply(550, 'no such user'), reply(250), reply(354)])).toEqual({
      kind: 'send_data',
      accepted: ['b@x.test'],
      rejected: [{ recipient: 'a@x.test', responseCode: 550, response: '550 no such user' }],
    });
  });
  it('fails with the reply that decided it: MAIL, the last refused recipient, or DATA', () => {
    expect(decideEnvelope(['a@x.test'], [reply(451, 'later'), reply(503), reply(503)])).toMatchObject({ kind: 'failed', abandon: false, error: { code: 'EENVELOPE', responseCode: 451 } });
    expect(decideEnvelope(['a@x.test', 'b@x.test'], [reply(250), reply(550), reply(452), reply(554)])).toMatchObject({ kind: 'failed', error: { responseCode: 452 } });
    expect(decideEnvelope(['a@x.test'], [reply(250), reply(250), reply(451)])).toMatchObject({ kind: 'failed', error: { responseCode: 451 } });
    // Lock-step stops before DATA when every recipient was refused.
    expect(decideEnvelope(['a@x.test'], [reply(250), reply(550)])).toMatchObject({ kind: 'failed', abandon: false, error: { responseCode: 550 } });
  });
  it('abandons the connection when the server went into DATA after refusing the envelope', () => {
    expect(decideEnvelope(['a@x.test'], [reply(250), reply(550), reply(354)])).toMatchObject({ kind: 'failed', abandon: true });
  });
});

describe('dataBlock', () => {
  it('doubles leading dots, makes bare line feeds CRLF and ends with the dot line', () => {
    expect(dataBlock(Buffer.from('.a\r\nb\n.\r\nc')).toString()).toBe('..a\r\nb\r\n..\r\nc\r\n.\r\n');
    expect(dataBlock(Buffer.from('ends\r\n')).toString()).toBe('ends\r\n.\r\n');
    expect(dataBlock(Buffer.from('')).toString()).toBe('.\r\n');
  });
});
