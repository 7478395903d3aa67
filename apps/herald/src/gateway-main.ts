import { loadHeraldConfig } from '@herald/runtime';
import { startGateway, upstreamsOf } from './gateway';

// `npm run start:gateway`: {base_url} of a local distributed mode on one port (see gateway.ts).
const port = Number(process.env.HERALD_GATEWAY_PORT ?? '8080');
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write('HERALD_GATEWAY_PORT must be a port number (0 to 65535)\n');
  process.exit(2);
}
try {
  const upstreams = upstreamsOf(process.env.HERALD_GATEWAY_UPSTREAMS);
  // The HTTP timeouts and connection caps (HERALD_HTTP_*), as every Herald server reads them.
  const { http } = loadHeraldConfig(process.env);
  void startGateway(upstreams, port, process.env.HERALD_HOST ?? '127.0.0.1', http).then(({ url, close }) => {
    process.stdout.write(`{base_url} gateway at ${url} -> ${JSON.stringify(upstreams)}\n`);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void close().then(() => process.exit(0)));
  });
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
