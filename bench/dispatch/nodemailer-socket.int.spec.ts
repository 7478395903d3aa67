import { AddressInfo, Server, Socket, connect, createServer } from 'node:net';
import { gatherWritesPerTurn } from './nodemailer-socket';

describe('gatherWritesPerTurn', () => {
  let server: Server;
  let received: Buffer[];
  let socket: Socket;

  beforeEach(async () => {
    received = [];
    server = createServer((connection) => connection.on('data', (chunk: Buffer) => received.push(chunk)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    socket = gatherWritesPerTurn(connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, noDelay: true }));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
  });

  afterEach(async () => {
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const arrived = async (text: string): Promise<void> => {
    while (Buffer.concat(received).toString('utf8') !== text) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('hands the writes of one turn to the kernel as one, in order', async () => {
    const kernelWrites = jest.spyOn(socket as unknown as { _writeGeneric: (...args: unknown[]) => void }, '_writeGeneric');
    socket.write('MAIL FROM:<a@b.test>\r\n');
    socket.write(Buffer.from('RCPT TO:<c@d.test>\r\n'));
    await Promise.resolve(); // a chunk passed on through a promise is still this turn
    socket.write('DATA\r\n');
    await arrived('MAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nDATA\r\n');
    expect(kernelWrites).toHaveBeenCalledTimes(1);
  });

  it('sends what a later turn writes without waiting for a reply', async () => {
    socket.write('EHLO herald\r\n');
    await arrived('EHLO herald\r\n');
    await new Promise((resolve) => setImmediate(resolve));
    socket.write('QUIT\r\n');
    await arrived('EHLO herald\r\nQUIT\r\n');
  });
});
