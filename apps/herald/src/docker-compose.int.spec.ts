import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadHeraldConfig, requireDistributed } from '@herald/runtime';
import { REPO_ROOT } from '@herald/testing';
import { GatewayUpstreams, routeOf, upstreamsOf } from './gateway';

/**
 * docker/compose.yaml and docker/herald.env.example as a newcomer uses them: one
 * {base_url} (the gateway) reaching every route, a header that says which service
 * serves what, and an example environment the services start with.
 */
interface ComposeService {
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  env_file?: string[];
}

// merge: the services share their settings through a YAML anchor (<<: *herald-service).
const compose = parse(readFileSync(join(REPO_ROOT, 'docker', 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const composeText = readFileSync(join(REPO_ROOT, 'docker', 'compose.yaml'), 'utf8');
const exampleText = readFileSync(join(REPO_ROOT, 'docker', 'herald.env.example'), 'utf8');
const UPSTREAMS: ReadonlyArray<keyof GatewayUpstreams> = ['ingest-api', 'preference-service', 'workflow-engine', 'channel-dispatchers'];

/** `host:container` port mappings of a service. */
function published(service: string): Array<{ host: number; container: number }> {
  return (compose.services[service]?.ports ?? []).map((mapping) => {
    const [host, container] = mapping.split(':').map(Number);
    return { host, container };
  });
}

/** docker compose's env_file: KEY=VALUE lines, the rest comments. */
function envFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('docker/compose.yaml', () => {
  it('has a gateway that reaches each {base_url} service at its address inside the compose network', () => {
    const gateway = compose.services.gateway;
    expect(gateway?.command?.slice(-1)).toEqual(['apps/herald/src/gateway-main.ts']);
    const upstreams = upstreamsOf(String(gateway.environment?.HERALD_GATEWAY_UPSTREAMS));
    for (const service of UPSTREAMS) {
      const url = new URL(upstreams[service]);
      // The compose service of that name, on the port its container listens on.
      expect({ service, host: url.hostname, port: Number(url.port) }).toEqual({ service, host: service, port: published(service)[0]?.container });
    }
    expect(published('gateway')).toEqual([{ host: 8080, container: Number(gateway.environment?.HERALD_GATEWAY_PORT) }]);
  });

  it("header's port table: each service's host port and {base_url} paths, routed there by the gateway", () => {
    const rows = [...composeText.matchAll(/^#\s+(\d+)\s+([a-z-]+)\s+\(\{base_url\}: ([^)]+)\)/gm)].map(([, port, service, paths]) => ({ port: Number(port), service, paths }));
    expect(rows.map((row) => row.service).sort()).toEqual([...UPSTREAMS, 'gateway'].sort());
    for (const { port, service, paths } of rows) {
      expect({ service, hostPorts: published(service).map((p) => p.host) }).toEqual({ service, hostPorts: [port] });
      if (service === 'gateway') continue;
      for (const path of paths.split(',').map((p) => p.trim())) {
        const concrete = path.replace(/\{[a-z_]+\}/g, 'some_id');
        expect({ path, service: routeOf(concrete) }).toEqual({ path, service });
      }
    }
  });

  it('console: offers the gateway as {base_url}', () => {
    expect(envFile(exampleText).HERALD_CONSOLE_BASE_URL).toBe(`http://localhost:${published('gateway')[0].host}/`);
  });
});

describe('docker/herald.env.example', () => {
  // What a service container sees: the image's variables, compose's per-service ones, the file.
  const image = { HERALD_SERVICE: 'management-api', NODE_ENV: 'production', HERALD_PORT: '3000', HERALD_MANAGEMENT_PORT: '3001', HERALD_HOST: '0.0.0.0' };
  const service = Object.fromEntries(Object.entries(compose.services['management-api'].environment ?? {}).map(([k, v]) => [k, String(v)]));
  const start = (file: Record<string, string>): void => requireDistributed(loadHeraldConfig({ ...image, ...service, ...file }), 'management-api');

  it('starts a service as it is', () => {
    expect(compose.services['management-api'].env_file).toEqual(['herald.env']);
    expect(() => start(envFile(exampleText))).not.toThrow();
  });

  it('starts a service with its commented settings uncommented as they are, or filled as its comment says', () => {
    const uncommented = exampleText.replace(/^# (HERALD_[A-Z_]+=)/gm, '$1');
    const commented = Object.keys(envFile(uncommented)).filter((name) => !(name in envFile(exampleText)));
    expect(commented).toEqual(expect.arrayContaining(['HERALD_BOOTSTRAP_SERVICE_TOKEN', 'HERALD_BOOTSTRAP_API_KEY', 'HERALD_BOOTSTRAP_WORKSPACE_KEY', 'HERALD_BOOTSTRAP_WORKSPACE_SECRET']));
    expect(() => start(envFile(uncommented))).not.toThrow();
    // `openssl rand -hex 24`, as the comment suggests, for each empty bootstrap credential.
    const filled = Object.fromEntries(
      Object.entries(envFile(uncommented)).map(([name, value]) => [name, name.startsWith('HERALD_BOOTSTRAP_') && value === '' ? randomBytes(24).toString('hex') : value]),
    );
    expect(() => start(filled)).not.toThrow();
    expect(exampleText).toContain('openssl rand -hex 24');
  });
});
