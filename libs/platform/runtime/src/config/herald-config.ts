import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'pretty';

export interface KafkaConfig {
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** Prefix of every topic and consumer group; lets installations share a cluster. */
  readonly namespace?: string;
  /** How old a consumer's lag figures (`herald_bus_consumer_lag`) may be before a scrape asks the broker again. */
  readonly lagRefreshMs: number;
}

export interface BootstrapCredentials {
  readonly serviceToken?: string;
  readonly workspace: string;
  readonly apiKey?: string;
  readonly workspaceKey?: string;
  readonly workspaceSecret?: string;
  /** The first console owner (HERALD_BOOTSTRAP_OPERATOR_EMAIL and _PASSWORD), made when the first account has no operator. */
  readonly operatorEmail?: string;
  readonly operatorPassword?: string;
}

/** The identity provider the console offers "Sign in with SSO" through (OpenID Connect, code flow with PKCE). */
export interface OidcConfig {
  /** HERALD_OIDC_ISSUER: its discovery document is `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  /** Absent: a public client (PKCE only). */
  readonly clientSecret?: string;
}

/**
 * What every HTTP server Herald runs (both APIs, the dev gateway) allows a client, so
 * that connections cannot be held open: a request must arrive whole within the
 * timeouts, and the connections open at once are capped in total and per address.
 */
export interface HttpServerLimits {
  /** A connection with no bytes either way for this long is closed, also while a request is handled. */
  readonly connectionTimeoutMs: number;
  /** A request's headers must have arrived this long after its first byte (else 408 and the connection closed). */
  readonly headersTimeoutMs: number;
  /** A request, headers and body, must have arrived this long after its first byte (else 408 and the connection closed). */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** Connections open at once per server; absent: derived from the process's open-file limit. */
  readonly maxConnections?: number;
  /** Connections open at once from one remote address; absent: half the total, at most 1,000. */
  readonly maxConnectionsPerAddress?: number;
}

/**
 * Failed authentications (any credential) allowed in a window before further attempts
 * are answered 429 with Retry-After, per remote address and per credential presented.
 * Successes are never counted. Kept in memory: the limits are per replica.
 */
export interface AuthFailureLimits {
  readonly perAddress: number;
  readonly perCredential: number;
  readonly windowSeconds: number;
}

/**
 * Whose `X-Forwarded-For` the HTTP servers believe for a client's address (the one the
 * failed-authentication limits count): every peer (`true`, behind an Ingress or gateway
 * that sets the header), no peer (`false`, Herald reached directly, where a client could
 * forge it), or the peers in these addresses, CIDR ranges or proxy-addr's named ranges
 * (`loopback`, `linklocal`, `uniquelocal`). The forms Fastify's `trustProxy` takes.
 */
export type TrustProxy = boolean | readonly string[];

/** proxy-addr's names for ranges of addresses, which Fastify's trustProxy also takes. */
const NAMED_PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** Shortest HERALD_BOOTSTRAP_SERVICE_TOKEN, _API_KEY and _WORKSPACE_SECRET (generated ones are 47 characters). */
export const MIN_BOOTSTRAP_SECRET_LENGTH = 32;

/**
 * Every setting Herald reads, validated once at boot. Nothing else in the code
 * reads `process.env`. The README lists each variable.
 */
export interface HeraldConfig {
  /** Interface the HTTP servers bind to. */
  readonly host: string;
  /** `{base_url}` port: ingest-api and preference-service (and health of the others). */
  readonly port: number;
  /** `{management_url}` port. */
  readonly managementPort: number;
  /** Where the embedded mode keeps its data (PGlite files, generated keys). */
  readonly dataDir: string;
  /** Absent: the in-process bus. */
  readonly kafka?: KafkaConfig;
  /** Absent: embedded PGlite under dataDir. */
  readonly databaseUrl?: string;
  /** Partitions of the topics Herald creates. */
  readonly topicPartitions: number;
  readonly logLevel: LogLevel;
  /** Absent: pretty when stdout is a terminal, JSON otherwise (chooseLogFormat). */
  readonly logFormat?: LogFormat;
  readonly shutdownTimeoutMs: number;
  /** 32-byte key for secrets at rest; the embedded mode generates one under dataDir. */
  readonly secretsKey?: Buffer;
  readonly bootstrap: BootstrapCredentials;
  /** CIDR ranges outbound HTTP may reach although private or loopback. */
  readonly outboundAllow: readonly string[];
  /**
   * Failures (other than an outage) a consumed message or an outbox row may have
   * before it is dead-lettered or parked.
   */
  readonly messageMaxAttempts: number;
  /** Largest message either bus accepts; at most the broker's `message.max.bytes`. */
  readonly busMaxMessageBytes: number;
  /**
   * Embedded mode: the in-process bus's backlog (messages published, not yet consumed)
   * past which the ingest API answers 429 with Retry-After instead of accepting more.
   */
  readonly ingestMaxBacklog: number;
  /** Embedded mode: the same backlog's bytes (keys, values, headers) past which the ingest API answers 429. */
  readonly ingestMaxBacklogBytes: number;
  /** Longest a management commit waits for the notification API to see the new version; 0: answer at once. */
  readonly commitVisibilityTimeoutMs: number;
  /**
   * Longest an audience write (an identity event, a profile, preference, tenant or
   * subscription change) waits for the engine's read model to hold it; 0: answer at once.
   */
  readonly audienceVisibilityTimeoutMs: number;
  /**
   * `{base_url}` as a browser reaches it, offered to the operator console at sign-in
   * (distributed mode; the embedded launcher knows its own). Absent: the operator types it.
   */
  readonly consoleBaseUrl?: string;
  /**
   * HERALD_DISPATCHERS_URL: where management-api reaches channel-dispatchers for a vendor
   * test (distributed mode, e.g. http://channel-dispatchers:3000/); embedded, its own process.
   */
  readonly dispatchersUrl?: string;
  /**
   * `{base_url}` as an email's recipient reaches it (HERALD_PUBLIC_URL): the open pixel,
   * tracked links and List-Unsubscribe point here. Absent: emails are sent untracked and
   * without List-Unsubscribe.
   */
  readonly publicUrl?: string;
  readonly http: HttpServerLimits;
  /** Whose X-Forwarded-For names a client's address (HERALD_TRUST_PROXY). */
  readonly trustProxy: TrustProxy;
  readonly authFailures: AuthFailureLimits;
  /** Longest lifetime (`exp - iat`, and `exp` ahead of now) a browser's user token may have. */
  readonly userTokenMaxLifetimeSeconds: number;
  /** Absent: the console signs in with passwords (and service tokens) only. */
  readonly oidc?: OidcConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export function loadHeraldConfig(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): HeraldConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const optionalInteger = (name: string, min: number, max: number): number | undefined =>
    read(name) === undefined ? undefined : integer(name, min, min, max);

  const brokers = read('HERALD_KAFKA_BROKERS')
    ?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  for (const broker of brokers ?? []) {
    if (!/^[^\s:]+:\d{1,5}$/.test(broker)) problems.push(`HERALD_KAFKA_BROKERS entry "${broker}" is not host:port`);
  }

  const kafkaNamespace = read('HERALD_KAFKA_NAMESPACE');
  if (kafkaNamespace !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(kafkaNamespace)) {
    problems.push(`HERALD_KAFKA_NAMESPACE must be 1 to 100 letters, digits, "_" or "-", got "${kafkaNamespace}"`);
  }

  const databaseUrl = read('HERALD_DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('HERALD_DATABASE_URL must be a postgres:// URL');
  }

  const logLevel = (read('HERALD_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`HERALD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = read('HERALD_LOG_FORMAT') as LogFormat | undefined;
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty') problems.push(`HERALD_LOG_FORMAT must be json or pretty, got "${logFormat}"`);

  let secretsKey: Buffer | undefined;
  const rawKey = read('HERALD_SECRETS_KEY');
  if (rawKey) {
    secretsKey = Buffer.from(rawKey, 'base64');
    if (secretsKey.length !== 32) problems.push('HERALD_SECRETS_KEY must be 32 bytes, base64-encoded');
  }

  const workspace = read('HERALD_BOOTSTRAP_WORKSPACE') ?? 'staging';
  if (!/^[a-z0-9-_]{1,64}$/.test(workspace)) {
    problems.push('HERALD_BOOTSTRAP_WORKSPACE must match ^[a-z0-9-_]{1,64}$');
  }

  const workspaceKey = read('HERALD_BOOTSTRAP_WORKSPACE_KEY');
  if (workspaceKey !== undefined && !/^[A-Za-z0-9_-]{20,128}$/.test(workspaceKey)) {
    // The SuprSend SDKs refuse to send events with a workspace key shorter than 20.
    problems.push('HERALD_BOOTSTRAP_WORKSPACE_KEY must be 20 to 128 letters, digits, _ or -');
  }

  // A guessable first credential is worse than a generated one: refuse it at start-up.
  for (const name of ['HERALD_BOOTSTRAP_SERVICE_TOKEN', 'HERALD_BOOTSTRAP_API_KEY', 'HERALD_BOOTSTRAP_WORKSPACE_SECRET']) {
    const value = read(name);
    if (value !== undefined && !isStrongSecret(value)) {
      problems.push(
        `${name} must be at least ${MIN_BOOTSTRAP_SECRET_LENGTH} characters with at least 8 different ones (e.g. openssl rand -base64 32), got ${value.length} characters`,
      );
    }
  }

  const outboundAllow = (read('HERALD_OUTBOUND_ALLOW') ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  for (const cidr of outboundAllow) {
    if (!/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(cidr)) problems.push(`HERALD_OUTBOUND_ALLOW entry "${cidr}" is not a CIDR range`);
  }

  const dispatchersUrl = read('HERALD_DISPATCHERS_URL');
  if (dispatchersUrl !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(dispatchersUrl)) {
    problems.push(`HERALD_DISPATCHERS_URL must be an http(s) URL without query or fragment, got "${dispatchersUrl}"`);
  }
  const consoleBaseUrl = read('HERALD_CONSOLE_BASE_URL');
  if (consoleBaseUrl !== undefined && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(consoleBaseUrl)) {
    problems.push(`HERALD_CONSOLE_BASE_URL must be an http(s) URL, got "${consoleBaseUrl}"`);
  }

  const publicUrl = read('HERALD_PUBLIC_URL')?.replace(/\/+$/, '');
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(publicUrl)) {
    problems.push(`HERALD_PUBLIC_URL must be an http(s) URL without query or fragment, got "${publicUrl}"`);
  }

  const operatorEmail = read('HERALD_BOOTSTRAP_OPERATOR_EMAIL');
  const operatorPassword = env.HERALD_BOOTSTRAP_OPERATOR_PASSWORD;
  if ((operatorEmail === undefined) !== (operatorPassword === undefined || operatorPassword === '')) {
    problems.push('HERALD_BOOTSTRAP_OPERATOR_EMAIL and HERALD_BOOTSTRAP_OPERATOR_PASSWORD go together');
  }
  if (operatorEmail !== undefined && !/^[^\s@]+@[^\s@]+$/.test(operatorEmail)) problems.push(`HERALD_BOOTSTRAP_OPERATOR_EMAIL must be an email address, got "${operatorEmail}"`);

  const oidcIssuer = read('HERALD_OIDC_ISSUER');
  const oidcClientId = read('HERALD_OIDC_CLIENT_ID');
  if (oidcIssuer !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(oidcIssuer)) problems.push(`HERALD_OIDC_ISSUER must be an http(s) URL, got "${oidcIssuer}"`);
  if ((oidcIssuer === undefined) !== (oidcClientId === undefined)) problems.push('HERALD_OIDC_ISSUER and HERALD_OIDC_CLIENT_ID go together');

  const trustProxy = parseTrustProxy(read('HERALD_TRUST_PROXY'), problems);

  const dataDir = read('HERALD_DATA_DIR') ?? '.herald';
  const config: HeraldConfig = {
    host: read('HERALD_HOST') ?? '127.0.0.1',
    port: integer('HERALD_PORT', 3000, 0, 65535),
    managementPort: integer('HERALD_MANAGEMENT_PORT', 3001, 0, 65535),
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    kafka: brokers && brokers.length > 0 ? {
            brokers,
            clientId: read('HERALD_KAFKA_CLIENT_ID') ?? 'herald',
            namespace: kafkaNamespace,
            lagRefreshMs: integer('HERALD_KAFKA_LAG_REFRESH_MS', 15_000, 100, 600_000),
          } : undefined,
    databaseUrl,
    topicPartitions: integer('HERALD_KAFKA_PARTITIONS', 12, 1, 1000),
    logLevel,
    logFormat,
    shutdownTimeoutMs: integer('HERALD_SHUTDOWN_TIMEOUT_MS', 25_000, 1_000, 600_000),
    secretsKey,
    bootstrap: {
      serviceToken: read('HERALD_BOOTSTRAP_SERVICE_TOKEN'),
      workspace,
      apiKey: read('HERALD_BOOTSTRAP_API_KEY'),
      workspaceKey,
      workspaceSecret: read('HERALD_BOOTSTRAP_WORKSPACE_SECRET'),
      operatorEmail,
      // Not trimmed: a password's spaces are its own.
      operatorPassword: operatorEmail === undefined ? undefined : operatorPassword,
    },
    outboundAllow,
    messageMaxAttempts: integer('HERALD_MESSAGE_MAX_ATTEMPTS', 10, 1, 1_000),
    busMaxMessageBytes: integer('HERALD_BUS_MAX_MESSAGE_BYTES', 1_048_588, 1_024, 100 * 1024 * 1024),
    ingestMaxBacklog: integer('HERALD_INGEST_MAX_BACKLOG', 50_000, 1, 100_000_000),
    // 64 MiB: what the backlog may hold in memory with the process still under 1 GB (about
    // 750 MB resident when idle, ingest bench of 2026-11-25); a chunk of 100 recipients is about 10 kB.
    ingestMaxBacklogBytes: integer('HERALD_INGEST_MAX_BACKLOG_BYTES', 64 * 1024 * 1024, 1_024, 16 * 1024 * 1024 * 1024),
    commitVisibilityTimeoutMs: integer('HERALD_COMMIT_VISIBILITY_TIMEOUT_MS', 10_000, 0, 120_000),
    // 30 s: an acknowledgement normally takes milliseconds, but on a saturated machine the
    // engine's audience consumer lagged past 5 s and then 15 s (a consumer group rejoining
    // after missed heartbeats takes its 10 s session timeout and more), and a write
    // answered before it is one a trigger sent next may not see.
    audienceVisibilityTimeoutMs: integer('HERALD_AUDIENCE_VISIBILITY_TIMEOUT_MS', 30_000, 0, 120_000),
    consoleBaseUrl,
    dispatchersUrl,
    publicUrl,
    http: {
      // At least 30 s: an inbox event stream sends its heartbeat every 25 s.
      connectionTimeoutMs: integer('HERALD_HTTP_CONNECTION_TIMEOUT_MS', 120_000, 30_000, 3_600_000),
      headersTimeoutMs: integer('HERALD_HTTP_HEADERS_TIMEOUT_MS', 15_000, 100, 600_000),
      requestTimeoutMs: integer('HERALD_HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000),
      keepAliveTimeoutMs: integer('HERALD_HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 3_600_000),
      maxConnections: optionalInteger('HERALD_HTTP_MAX_CONNECTIONS', 1, 1_000_000),
      maxConnectionsPerAddress: optionalInteger('HERALD_HTTP_MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000),
    },
    trustProxy,
    authFailures: {
      perAddress: integer('HERALD_AUTH_MAX_FAILURES_PER_ADDRESS', 50, 1, 1_000_000),
      perCredential: integer('HERALD_AUTH_MAX_FAILURES_PER_CREDENTIAL', 200, 1, 1_000_000),
      windowSeconds: integer('HERALD_AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    },
    userTokenMaxLifetimeSeconds: integer('HERALD_USER_TOKEN_MAX_LIFETIME_SECONDS', 30 * 86_400, 60, 365 * 86_400),
    oidc: oidcIssuer !== undefined && oidcClientId !== undefined ? { issuer: oidcIssuer, clientId: oidcClientId, clientSecret: read('HERALD_OIDC_CLIENT_SECRET') } : undefined,
  };
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    problems.push('HERALD_HTTP_HEADERS_TIMEOUT_MS must not exceed HERALD_HTTP_REQUEST_TIMEOUT_MS');
  }
  if (config.http.connectionTimeoutMs <= Math.max(config.commitVisibilityTimeoutMs, config.audienceVisibilityTimeoutMs)) {
    // Those waits send nothing: a connection closed as idle first would lose the answer.
    problems.push('HERALD_HTTP_CONNECTION_TIMEOUT_MS must exceed HERALD_COMMIT_VISIBILITY_TIMEOUT_MS and HERALD_AUDIENCE_VISIBILITY_TIMEOUT_MS');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** `true` (the default), `false`, or a comma-separated list of addresses, CIDR ranges and named ranges. */
function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  if (raw === undefined || raw === 'true') return true;
  if (raw === 'false') return false;
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (!isProxyAddress(entry)) {
      problems.push(`HERALD_TRUST_PROXY must be true, false or a comma-separated list of addresses and CIDR ranges; "${entry}" is none of these`);
    }
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (NAMED_PROXY_RANGES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Long enough, and not one character repeated: `aaaa…` is no secret however long. */
function isStrongSecret(value: string): boolean {
  return value.length >= MIN_BOOTSTRAP_SECRET_LENGTH && new Set(value).size >= 8;
}

/** A distributed service needs both real infrastructures; the embedded launcher needs neither. */
export function requireDistributed(config: HeraldConfig, service: string): void {
  const missing = [
    config.kafka ? undefined : 'HERALD_KAFKA_BROKERS',
    config.databaseUrl ? undefined : 'HERALD_DATABASE_URL',
  ].filter((v): v is string => v !== undefined);
  if (missing.length > 0) {
    throw new ConfigError(missing.map((name) => `${name} is required to run ${service} on its own (or use npm start)`));
  }
}
