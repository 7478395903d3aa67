import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createTcpServer, Socket } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface LocalServer {
  /** http://host:port */
  readonly origin: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** TCP connections accepted: proof that a refused destination was never even connected to. */
  connections(): number;
  close(): Promise<void>;
}

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void;

async function listen(server: Server | ReturnType<typeof createTcpServer>, host: string, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function readAll(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
    request.on('error', reject);
  });
}

/** An HTTP server on a loopback address that records what it receives. Port 0: any free one. */
export async function startLocalServer(handler: Handler, host = '127.0.0.1', port = 0): Promise<LocalServer> {
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    void readAll(request).then((body) => {
      const received = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      requests.push(received);
      handler(received, response);
    });
  });
  server.on('connection', () => (connections += 1));
  const boundPort = await listen(server, host, port);
  return {
    origin: `http://${host}:${boundPort}`,
    port: boundPort,
    requests,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP server that accepts and never says a word: a TLS handshake against it hangs. */
export async function startSilentServer(host = '127.0.0.1'): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server, host);
  return {
    port,
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
