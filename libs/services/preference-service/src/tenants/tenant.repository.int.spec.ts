import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CategoryDocument } from '@herald/audience';
import { AudienceChanged } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { CategoryDocumentRepository } from '../categories/category-document.repository';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { openAudienceDatabase } from '../testing/repository-database';
import { TenantRepository } from './tenant.repository';

const CATEGORIES: CategoryDocument = {
  root_categories: [
    {
      root_category: 'system',
      sections: [
        {
          name: 'Account',
          description: 'About your account',
          categories: [
            { category: 'security', name: 'Security', default_preference: 'cant_unsubscribe', default_mandatory_channels: ['email'] },
            { category: 'billing', name: 'Billing', description: 'Invoices', default_preference: 'opt_in' },
          ],
        },
      ],
    },
    { root_category: 'transactional', sections: [{ name: 'Orders', categories: [{ category: 'shipping', name: 'Shipping', default_preference: 'opt_out' }] }] },
  ],
};

describe.each(databaseTargets())('the tenant repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let tenants: TenantRepository;

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    const categories = new CategoryDocumentRepository(db);
    tenants = new TenantRepository(db, categories, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newWorkspace = async (withCategories = true): Promise<AuthenticatedWorkspace> => {
    const ws = { id: randomUUID(), slug: `ws-${randomUUID().slice(0, 8)}` };
    if (withCategories) await db.query(`INSERT INTO audience.category_documents (workspace_id, version, document) VALUES ($1, 1, $2::jsonb)`, [ws.id, JSON.stringify(CATEGORIES)]);
    return ws;
  };

  /** The workspace's tenant announcements, in order. */
  async function announced(ws: AuthenticatedWorkspace): Promise<Array<Extract<AudienceChanged, { kind: 'tenant' }>>> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${AUDIENCE_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => (JSON.parse(row.value) as { workspace_id: string; payload: AudienceChanged }).payload)
      .flatMap((change) => (change.kind === 'tenant' && change.workspace_slug === ws.slug ? [change] : []));
  }

  it('creates a tenant, merges later upserts into its document and keeps its blocked channels unless given, announcing each', async () => {
    const ws = await newWorkspace();
    const created = await tenants.upsert(ws, 'acme', { logo: 'a.png', properties: { plan: 'pro' } });
    expect(created).toEqual({
      tenant_id: 'acme',
      tenant_name: 'acme',
      logo: 'a.png',
      properties: { plan: 'pro' },
      blocked_channels: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const renamed = await tenants.upsert(ws, 'acme', { tenant_name: 'Acme', blocked_channels: ['sms'] });
    expect(renamed).toMatchObject({ tenant_name: 'Acme', logo: 'a.png', properties: { plan: 'pro' }, blocked_channels: ['sms'], created_at: created.created_at });
    expect(await tenants.upsert(ws, 'acme', { primary_color: '#fff', blocked_channels: null })).toMatchObject({ logo: 'a.png', primary_color: '#fff', blocked_channels: ['sms'] });
    expect(await tenants.upsert(ws, 'acme', { blocked_channels: [] })).toMatchObject({ blocked_channels: [] });
    expect(await tenants.read(ws, 'acme')).toEqual({
      tenant_id: 'acme',
      tenant_name: 'Acme',
      logo: 'a.png',
      properties: { plan: 'pro' },
      primary_color: '#fff',
      blocked_channels: [],
      created_at: created.created_at,
      updated_at: expect.any(String),
    });

    const changes = await announced(ws);
    expect(changes.map((change) => change.change === 'upserted' && change.tenant?.blocked_channels)).toEqual([[], ['sms'], ['sms'], []]);
    expect(changes[1]).toEqual({
      kind: 'tenant',
      change: 'upserted',
      workspace_slug: ws.slug,
      tenant_id: 'acme',
      tenant: renamed,
      preferences: { blocked_channels: ['sms'], categories: {} },
    });
  });

  it('answers 404 for a tenant the workspace does not have', async () => {
    const ws = await newWorkspace();
    const other = await newWorkspace();
    await tenants.upsert(other, 'acme', {});
    await expect(tenants.read(ws, 'acme')).rejects.toMatchObject({ code: 'not_found', shape: 'short', message: "tenant 'acme' not found" });
    await expect(tenants.delete(ws, 'acme')).rejects.toThrow("tenant 'acme' not found");
    await expect(tenants.updateCategoryDefault(ws, 'acme', 'billing', { preference: 'opt_out' })).rejects.toThrow("tenant 'acme' not found");
    await expect(tenants.categoryDefault(ws, 'acme', 'billing')).rejects.toThrow("tenant 'acme' not found");
    await expect(tenants.categoryDefaults(ws, 'acme', { limit: 10, offset: 0 })).rejects.toThrow("tenant 'acme' not found");
    await expect(tenants.fullPreference(ws, 'acme')).rejects.toThrow("tenant 'acme' not found");
    expect(await tenants.preferences(ws, 'acme')).toBeNull();
    expect(await tenants.read(other, 'acme')).toMatchObject({ tenant_id: 'acme' });
  });

  it('pages the workspace tenants newest first, by tenant id among those created at once', async () => {
    const ws = await newWorkspace();
    const other = await newWorkspace();
    for (const id of ['t1', 't2', 't3', 't4']) await tenants.upsert(ws, id, { tenant_name: id.toUpperCase() });
    await tenants.upsert(other, 'elsewhere', {});
    await db.query(`UPDATE audience.tenants SET created_at = '2026-01-01T00:00:00Z' WHERE workspace_id = $1 AND tenant_id IN ('t1', 't2')`, [ws.id]);

    const first = await tenants.all(ws, { limit: 3, offset: 0 });
    expect(first.meta).toEqual({ count: 4, limit: 3, offset: 0 });
    expect(first.results.map((tenant) => tenant.tenant_id)).toEqual(['t4', 't3', 't1']);
    expect(first.results[0]).toMatchObject({ tenant_name: 'T4', blocked_channels: [] });
    const second = await tenants.all(ws, { limit: 3, offset: 3 });
    expect(second).toEqual({ meta: { count: 4, limit: 3, offset: 3 }, results: [expect.objectContaining({ tenant_id: 't2', created_at: '2026-01-01T00:00:00.000Z' })] });
    expect((await tenants.all(await newWorkspace(), { limit: 10, offset: 0 })).meta.count).toBe(0);
  });

  it('deletes a tenant with its category defaults and announces it', async () => {
    const ws = await newWorkspace();
    await tenants.upsert(ws, 'gone', {});
    await tenants.upsert(ws, 'kept', {});
    await tenants.updateCategoryDefault(ws, 'gone', 'billing', { preference: 'opt_out' });
    await tenants.delete(ws, 'gone');
    await expect(tenants.read(ws, 'gone')).rejects.toThrow("tenant 'gone' not found");
    expect(await tenants.preferences(ws, 'gone')).toBeNull();
    const [{ n }]: Array<{ n: number }> = await db.query(`SELECT count(*)::int AS n FROM audience.tenant_category_defaults WHERE workspace_id = $1`, [ws.id]);
    expect(n).toBe(0);
    expect(await tenants.read(ws, 'kept')).toMatchObject({ tenant_id: 'kept' });
    expect((await announced(ws)).at(-1)).toEqual({ kind: 'tenant', change: 'deleted', workspace_slug: ws.slug, tenant_id: 'gone' });
  });

  it("keeps a tenant's default per category, merged over the category's, and reads it back one, paged, or by root category", async () => {
    const ws = await newWorkspace();
    await tenants.upsert(ws, 'acme', { blocked_channels: ['sms'] });
    await expect(tenants.updateCategoryDefault(ws, 'acme', 'nope', { preference: 'opt_out' })).rejects.toMatchObject({ code: 'not_found', message: "category 'nope' not found" });

    const billing = await tenants.updateCategoryDefault(ws, 'acme', 'billing', { preference: 'opt_out', opt_in_channels: ['email'] });
    expect(billing).toEqual({
      name: 'Billing',
      category: 'billing',
      description: 'Invoices',
      root_category: 'system',
      default_preference: 'opt_in',
      default_mandatory_channels: null,
      default_opt_in_channels: null,
      visible_to_subscriber: true,
      preference: 'opt_out',
      mandatory_channels: null,
      opt_in_channels: ['email'],
      blocked_channels: ['sms'],
    });
    // A second update keeps what it does not name.
    expect(await tenants.updateCategoryDefault(ws, 'acme', 'billing', { visible_to_subscriber: false })).toMatchObject({
      preference: 'opt_out',
      opt_in_channels: ['email'],
      visible_to_subscriber: false,
    });
    await tenants.updateCategoryDefault(ws, 'acme', 'security', { mandatory_channels: ['email', 'inbox'] });

    const stored = { preference: 'opt_out', visible_to_subscriber: false, mandatory_channels: null, opt_in_channels: ['email'], digest_schedule: null };
    const security = { preference: 'cant_unsubscribe', visible_to_subscriber: true, mandatory_channels: ['email', 'inbox'], opt_in_channels: null, digest_schedule: null };
    expect(await tenants.preferences(ws, 'acme')).toEqual({ tenant_id: 'acme', blocked_channels: ['sms'], categories: { billing: stored, security } });
    expect(await db.transaction((tx) => tenants.preferences(ws, 'acme', tx))).toEqual({ tenant_id: 'acme', blocked_channels: ['sms'], categories: { billing: stored, security } });
    const last = (await announced(ws)).at(-1);
    expect(last).toMatchObject({ change: 'upserted', tenant_id: 'acme', preferences: { blocked_channels: ['sms'], categories: { billing: stored, security } } });

    expect(await tenants.categoryDefault(ws, 'acme', 'billing')).toMatchObject({ preference: 'opt_out', visible_to_subscriber: false, opt_in_channels: ['email'] });
    // A category the tenant has no default for reads as the category's own.
    expect(await tenants.categoryDefault(ws, 'acme', 'shipping')).toMatchObject({ category: 'shipping', preference: 'opt_out', visible_to_subscriber: true, mandatory_channels: null });
    await expect(tenants.categoryDefault(ws, 'acme', 'nope')).rejects.toThrow("category 'nope' not found");

    const page = await tenants.categoryDefaults(ws, 'acme', { limit: 2, offset: 1 });
    expect(page.meta).toEqual({ count: 3, limit: 2, offset: 1 });
    expect(page.results.map((record) => [record.category, record.preference])).toEqual([
      ['billing', 'opt_out'],
      ['shipping', 'opt_out'],
    ]);

    const full = await tenants.fullPreference(ws, 'acme');
    expect(full.root_categories).toEqual([
      {
        root_category: 'system',
        sections: [
          {
            name: 'Account',
            description: 'About your account',
            tags: null,
            categories: [expect.objectContaining({ category: 'security', mandatory_channels: ['email', 'inbox'] }), expect.objectContaining({ category: 'billing', preference: 'opt_out' })],
          },
        ],
      },
      { root_category: 'transactional', sections: [{ name: 'Orders', description: null, tags: null, categories: [expect.objectContaining({ category: 'shipping' })] }] },
    ]);
  });

  it('reads a tenant of a workspace without categories as having none', async () => {
    const ws = await newWorkspace(false);
    await tenants.upsert(ws, 'bare', {});
    expect(await tenants.categoryDefaults(ws, 'bare', { limit: 10, offset: 0 })).toEqual({ meta: { count: 0, limit: 10, offset: 0 }, results: [] });
    expect(await tenants.fullPreference(ws, 'bare')).toEqual({ root_categories: [] });
    expect(await tenants.preferences(ws, 'bare')).toEqual({ tenant_id: 'bare', blocked_channels: [], categories: {} });
  });
});
