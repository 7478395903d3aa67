import { DataSource } from 'typeorm';
import { PoolClient, Pool, Notification } from 'pg';
import { EventStoreLogger } from '../event-store-logger';
import { errorMessage } from './polling-options';
import { WAKE_CHANNEL, WAKE_ORIGIN_SEPARATOR } from './wake-channel';

/** `origin`: the writing process's PROCESS_ORIGIN when the wake-up names one (the outbox's do). */
type OnWake = (origin?: string) => void;

/** How long after a lost LISTEN connection the next attempt waits; pollers poll fast meanwhile. */
const RECONNECT_DELAY_MS = 1_000;

const listeners = new WeakMap<DataSource, WakeListener>();

/**
 * One `LISTEN herald_wake` connection per data source, shared by the relays and pollers
 * on it: the triggers on `outbox` and `timers` notify at commit, naming what to wake
 * (`<schema>.outbox`, `<schema>.timers`). Idle pollers then sleep until woken, with a
 * slow safety poll, instead of polling every few milliseconds.
 *
 * Waking is an optimisation, never needed for correctness: a notification lost while
 * the connection was down is made up by the safety poll, and while `listening` is
 * false the pollers fall back to their fast idle delay. The embedded mode's wire
 * server hands a notification to every connection of its one shared session, so the
 * same code works on PGlite.
 */
export class WakeListener {
  private readonly subscribers = new Map<string, Set<OnWake>>();
  private client?: PoolClient;
  private connecting?: Promise<void>;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;

  private constructor(
    private readonly dataSource: DataSource,
    private readonly log: EventStoreLogger,
  ) {}

  /** The data source's listener, created on first use. */
  static of(dataSource: DataSource, log: EventStoreLogger): WakeListener {
    let listener = listeners.get(dataSource);
    if (!listener) {
      listener = new WakeListener(dataSource, log);
      listeners.set(dataSource, listener);
    }
    return listener;
  }

  /** Whether notifications arrive now; if not, a poller must not wait long for one. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /**
   * Calls `onWake` on each notification with this payload (`<payload>` or
   * `<payload>@<origin>`); the returned function unsubscribes (the last one closes the
   * connection).
   */
  subscribe(payload: string, onWake: OnWake): () => Promise<void> {
    const set = this.subscribers.get(payload) ?? new Set<OnWake>();
    set.add(onWake);
    this.subscribers.set(payload, set);
    this.closed = false;
    void this.connect();
    return async () => {
      set.delete(onWake);
      if (set.size === 0) this.subscribers.delete(payload);
      if (this.subscribers.size === 0) await this.close();
    };
  }

  private connect(): Promise<void> {
    if (this.client || this.closed || this.connecting) return this.connecting ?? Promise.resolve();
    this.connecting = this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    let client: PoolClient | undefined;
    try {
      // The pool's own connection, kept out of the pool while listening (as a session-level LISTEN must be).
      client = await (this.dataSource.driver as unknown as { master: Pool }).master.connect();
      const connection = client;
      connection.on('notification', (message: Notification) => this.dispatch(message));
      connection.on('error', (error: Error) => this.lost(connection, error));
      connection.on('end', () => this.lost(connection, new Error('connection ended')));
      await connection.query(`LISTEN ${WAKE_CHANNEL}`);
      if (this.closed) {
        connection.release(true);
        return;
      }
      this.client = connection;
      // Rows written while nobody listened: every poller takes a look.
      this.wakeAll();
    } catch (error) {
      client?.release(true);
      this.log('warn', 'wake listener could not listen; pollers poll at their idle delay meanwhile', { error: errorMessage(error) });
      this.scheduleReconnect();
    }
  }

  private lost(client: PoolClient, error: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.release(true);
    if (this.closed) return;
    this.log('warn', 'wake listener lost its connection; pollers poll at their idle delay meanwhile', { error: errorMessage(error) });
    this.wakeAll();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, RECONNECT_DELAY_MS);
  }

  private dispatch(message: Notification): void {
    if (message.channel !== WAKE_CHANNEL) return;
    const payload = message.payload ?? '';
    const at = payload.indexOf(WAKE_ORIGIN_SEPARATOR);
    const target = at < 0 ? payload : payload.slice(0, at);
    const origin = at < 0 ? undefined : payload.slice(at + 1);
    for (const onWake of this.subscribers.get(target) ?? []) onWake(origin);
  }

  private wakeAll(): void {
    for (const set of this.subscribers.values()) for (const onWake of set) onWake();
  }

  private async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    // Destroyed rather than returned: the pool must not hand out a listening session.
    client?.release(true);
  }
}
