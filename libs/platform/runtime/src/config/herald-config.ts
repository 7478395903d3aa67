import { isAbsolute, resolve } from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

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
}

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
   * `{base_url}` as a browser reaches it, offered to the operator console at sign-in
   * (distributed mode; the embedded launcher knows its own). Absent: the operator types it.
   */
  readonly consoleBaseUrl?: string;
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

  const outboundAllow = (read('HERALD_OUTBOUND_ALLOW') ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  for (const cidr of outboundAllow) {
    if (!/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(cidr)) problems.push(`HERALD_OUTBOUND_ALLOW entry "${cidr}" is not a CIDR range`);
  }

  const consoleBaseUrl = read('HERALD_CONSOLE_BASE_URL');
  if (consoleBaseUrl !== undefined && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(consoleBaseUrl)) {
    problems.push(`HERALD_CONSOLE_BASE_URL must be an http(s) URL, got "${consoleBaseUrl}"`);
  }

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
    shutdownTimeoutMs: integer('HERALD_SHUTDOWN_TIMEOUT_MS', 25_000, 1_000, 600_000),
    secretsKey,
    bootstrap: {
      serviceToken: read('HERALD_BOOTSTRAP_SERVICE_TOKEN'),
      workspace,
      apiKey: read('HERALD_BOOTSTRAP_API_KEY'),
      workspaceKey,
      workspaceSecret: read('HERALD_BOOTSTRAP_WORKSPACE_SECRET'),
    },
    outboundAllow,
    messageMaxAttempts: integer('HERALD_MESSAGE_MAX_ATTEMPTS', 10, 1, 1_000),
    busMaxMessageBytes: integer('HERALD_BUS_MAX_MESSAGE_BYTES', 1_048_588, 1_024, 100 * 1024 * 1024),
    ingestMaxBacklog: integer('HERALD_INGEST_MAX_BACKLOG', 50_000, 1, 100_000_000),
    // 64 MiB: what the backlog may hold in memory with the process still under 1 GB (about
    // 750 MB resident when idle, bench/RESULTS.md "Ingest"); a chunk of 100 recipients is about 10 kB.
    ingestMaxBacklogBytes: integer('HERALD_INGEST_MAX_BACKLOG_BYTES', 64 * 1024 * 1024, 1_024, 16 * 1024 * 1024 * 1024),
    commitVisibilityTimeoutMs: integer('HERALD_COMMIT_VISIBILITY_TIMEOUT_MS', 10_000, 0, 120_000),
    consoleBaseUrl,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
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
