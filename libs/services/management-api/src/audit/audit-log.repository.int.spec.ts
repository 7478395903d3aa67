import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase } from '../testing/repository-database';
import { AuditActor, AuditEntry, AuditLogRepository, NewAuditEntry } from './audit-log.repository';

describe.each(databaseTargets())('the audit log repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let audit: AuditLogRepository;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    db = opened.db;
    dispose = opened.close;
    audit = new AuditLogRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  async function newAccount(): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO management.accounts (id, name) VALUES ($1, 'test')`, [id]);
    return id;
  }
  const operator = (name: string): AuditActor => ({ kind: 'operator', id: randomUUID(), name });
  function change(accountId: string, actor: AuditActor, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
    return {
      accountId,
      workspaceSlug: 'staging',
      actor,
      method: 'POST',
      route: '/v1/:workspace/workflow/:slug',
      path: '/v1/staging/workflow/order-update/',
      resourceType: 'workflow',
      resourceIds: { slug: 'order-update' },
      statusCode: 201,
      before: null,
      after: { slug: 'order-update' },
      ...overrides,
    };
  }
  /** What each listed entry is, by its path: enough to tell entries and their order apart. */
  const paths = (entries: AuditEntry[]): string[] => entries.map((entry) => entry.path);

  it('appends an entry with the actor spread into its columns, and reads back exactly what it answered', async () => {
    const account = await newAccount();
    const actor: AuditActor = { kind: 'service_token', id: randomUUID(), name: 'ci' };
    const before = { name: 'Old', secret: '[redacted]', nested: { list: [1, 2] } };

    const appended = await audit.append(change(account, actor, { method: 'PATCH', statusCode: 200, before, after: null, workspaceSlug: null }));

    expect(appended).toEqual({
      seq: expect.any(String),
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      accountId: account,
      workspaceSlug: null,
      actorKind: 'service_token',
      actorId: actor.id,
      actorName: 'ci',
      method: 'PATCH',
      route: '/v1/:workspace/workflow/:slug',
      path: '/v1/staging/workflow/order-update/',
      resourceType: 'workflow',
      resourceIds: { slug: 'order-update' },
      statusCode: 200,
      before,
      after: null,
      occurredAt: expect.any(Date),
    });
    expect(await audit.list(account, {}, 10)).toEqual([appended]);
  });

  it('gives each entry its own id and a seq that grows', async () => {
    const account = await newAccount();
    const first = await audit.append(change(account, operator('a@example.com')));
    const second = await audit.append(change(account, operator('a@example.com')));
    expect(second.id).not.toBe(first.id);
    expect(BigInt(second.seq)).toBeGreaterThan(BigInt(first.seq));
  });

  it("lists the account's entries only, newest first, up to the limit, and pages on with before", async () => {
    const [account, other] = [await newAccount(), await newAccount()];
    const actor = operator('a@example.com');
    const appended: AuditEntry[] = [];
    for (const index of [0, 1, 2, 3, 4]) {
      appended.push(await audit.append(change(account, actor, { path: `/v1/staging/workflow/${index}/` })));
      // Interleaved with another account's, which no page of this account ever shows.
      await audit.append(change(other, actor, { path: `/v1/elsewhere/workflow/${index}/` }));
    }

    expect(paths(await audit.list(account, {}, 10))).toEqual(['4', '3', '2', '1', '0'].map((index) => `/v1/staging/workflow/${index}/`));
    const firstPage = await audit.list(account, {}, 2);
    expect(firstPage).toEqual([appended[4], appended[3]]);
    const secondPage = await audit.list(account, { before: firstPage[1].seq }, 2);
    expect(secondPage).toEqual([appended[2], appended[1]]);
    expect(await audit.list(account, { before: secondPage[1].seq }, 2)).toEqual([appended[0]]);
    expect(await audit.list(account, { before: appended[0].seq }, 2)).toEqual([]);
    expect(await audit.list(await newAccount(), {}, 10)).toEqual([]);
    // before compares seqs as numbers, not as text ('1000…' sorts before '2' as text).
    expect(paths(await audit.list(account, { before: '100000000000000000' }, 10))).toHaveLength(5);
  });

  it('filters by workspace, resource type, actor and method, each alone and together', async () => {
    const account = await newAccount();
    const [alice, bob] = [operator('alice@example.com'), operator('bob@example.com')];
    await audit.append(change(account, alice, { path: 'a', workspaceSlug: 'staging', resourceType: 'workflow', method: 'POST' }));
    await audit.append(change(account, bob, { path: 'b', workspaceSlug: 'production', resourceType: 'workflow', method: 'DELETE' }));
    await audit.append(change(account, alice, { path: 'c', workspaceSlug: 'production', resourceType: 'vendor', method: 'PUT' }));
    await audit.append(change(account, bob, { path: 'd', workspaceSlug: null, resourceType: 'operator', method: 'POST' }));

    expect(paths(await audit.list(account, { workspace: 'production' }, 10))).toEqual(['c', 'b']);
    expect(paths(await audit.list(account, { workspace: 'staging' }, 10))).toEqual(['a']);
    expect(paths(await audit.list(account, { resourceType: 'workflow' }, 10))).toEqual(['b', 'a']);
    expect(paths(await audit.list(account, { actorId: alice.id }, 10))).toEqual(['c', 'a']);
    expect(paths(await audit.list(account, { method: 'POST' }, 10))).toEqual(['d', 'a']);
    expect(paths(await audit.list(account, { workspace: 'production', actorId: bob.id }, 10))).toEqual(['b']);
    expect(paths(await audit.list(account, { workspace: 'production', resourceType: 'workflow', actorId: alice.id }, 10))).toEqual([]);
    // Undefined filters are no filters.
    expect(paths(await audit.list(account, { workspace: undefined, method: undefined }, 10))).toEqual(['d', 'c', 'b', 'a']);
  });

  it('lists the entries at or after since, and combines it with before', async () => {
    const account = await newAccount();
    const actor = operator('a@example.com');
    const entries: AuditEntry[] = [];
    for (const [index, at] of ['2026-03-01T09:00:00Z', '2026-03-01T10:00:00Z', '2026-03-01T11:00:00Z'].entries()) {
      const entry = await audit.append(change(account, actor, { path: String(index) }));
      // occurred_at is the database's clock: set to known times to filter on.
      await db.query(`UPDATE management.audit_log SET occurred_at = $2 WHERE id = $1`, [entry.id, new Date(at)]);
      entries.push(entry);
    }

    expect(paths(await audit.list(account, { since: new Date('2026-03-01T10:00:00Z') }, 10))).toEqual(['2', '1']);
    expect(paths(await audit.list(account, { since: new Date('2026-03-01T10:00:00.001Z') }, 10))).toEqual(['2']);
    expect(paths(await audit.list(account, { since: new Date('2026-03-01T12:00:00Z') }, 10))).toEqual([]);
    expect(paths(await audit.list(account, { since: new Date('2026-03-01T09:00:00Z'), before: entries[2].seq }, 10))).toEqual(['1', '0']);
    expect((await audit.list(account, { since: new Date('2026-03-01T11:00:00Z') }, 10))[0].occurredAt).toEqual(new Date('2026-03-01T11:00:00Z'));
  });
});
