import { DataSource } from 'typeorm';
import { Channel, DefinitionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { DEFAULT_MOCK_DATA, MockData } from './mock-data';
import { templateHash } from './template-commit';
import { Mode, TemplateMeta, TemplateRow, VariantRow } from './template-rows';
import { liveDocument } from './template-views';
import { TemplateRepository } from './template.repository';

describe.each(databaseTargets())('the template repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let now = new Date('2026-03-01T10:00:00.000Z');
  let templates: TemplateRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    templates = new TemplateRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const meta = (name: string, channels: Channel[] = ['email']): TemplateMeta => ({ name, description: `${name} described`, tags: ['billing'], enabled_channels: channels, strict: false });
  const variant = (templateId: string, mode: Mode, channel: Channel, id: string, fields: Partial<VariantRow> = {}): VariantRow => ({
    template_id: templateId,
    mode,
    channel,
    id,
    tenant_id: null,
    locale: 'en',
    conditions: [],
    content: { subject: `Hello from ${id}`, html: '<p>Hi</p>' },
    hash: `hash-${id}`,
    errors: [],
    has_error: false,
    seq_no: 1,
    needs_vendor_approval: false,
    approval_status: 'auto_approved',
    approval_at: null,
    discard_comment: null,
    vendor_approvals: [],
    action: null,
    created_at: now,
    updated_at: now,
    ...fields,
  });
  const ids = (variants: VariantRow[]) => variants.map((row) => row.id);
  /** A template created in its own transaction, with its draft metadata. */
  const created = (workspace: ScopedWorkspace, slug: string, name = slug): Promise<TemplateRow> =>
    templates.transaction(async (tx) => templates.updateDraftMeta(tx, (await templates.createAndLock(tx, workspace, slug, name)).id, meta(name)));
  /** The workspace's template announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'template', workspace);

  it('creates a template once, as a draft, and finds it by slug in its workspace only', async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await expect(templates.requireTemplate(templates.connection, workspace, 'receipt')).rejects.toThrow("template (slug: 'receipt') not found");

    const first = await templates.transaction((tx) => templates.createAndLock(tx, workspace, 'receipt', 'Receipt'));
    expect(first).toEqual({
      id: expect.any(String),
      workspace_id: workspace.id,
      slug: 'receipt',
      name: 'Receipt',
      description: null,
      tags: [],
      enabled_channels: [],
      strict: false,
      hash: '',
      live: null,
      live_hash: null,
      version_no: null,
      commit_message: null,
      active_at: null,
      revision: 0,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
    });
    // A second creation of the slug finds the first, unchanged.
    expect(await templates.transaction((tx) => templates.createAndLock(tx, workspace, 'receipt', 'Another name'))).toEqual(first);
    expect(await templates.requireTemplate(templates.connection, workspace, 'receipt')).toEqual(first);
    await expect(templates.requireTemplate(templates.connection, other, 'receipt')).rejects.toThrow('not found');
    await expect(templates.transaction((tx) => templates.requireTemplate(tx, other, 'receipt', true))).rejects.toThrow('not found');
  });

  it('leaves nothing of a transaction that fails', async () => {
    const workspace = await newWorkspace();
    await expect(
      templates.transaction(async (tx) => {
        await templates.createAndLock(tx, workspace, 'doomed', 'Doomed');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await expect(templates.requireTemplate(templates.connection, workspace, 'doomed')).rejects.toThrow('not found');
  });

  it('updates the draft metadata, enables channels once and refreshes the draft hash', async () => {
    const workspace = await newWorkspace();
    const template = await created(workspace, 'welcome', 'Welcome');
    expect(template).toMatchObject({ name: 'Welcome', description: 'Welcome described', tags: ['billing'], enabled_channels: ['email'], strict: false });

    await templates.transaction(async (tx) => {
      const strict = await templates.updateDraftMeta(tx, template.id, { ...meta('Welcome!', ['email']), strict: true });
      expect(strict).toMatchObject({ id: template.id, name: 'Welcome!', strict: true });

      const unchanged = await templates.enableChannel(tx, strict, 'email');
      expect(unchanged).toBe(strict);
      const enabled = await templates.enableChannel(tx, strict, 'sms');
      expect(enabled.enabled_channels).toEqual(['email', 'sms']);

      await templates.writeVariant(tx, variant(template.id, 'draft', 'sms', 'short'));
      now = new Date(now.getTime() + 60_000);
      const refreshed = await templates.refreshDraft(tx, enabled);
      expect(refreshed.hash).toBe(templateHash(enabled, [variant(template.id, 'draft', 'sms', 'short')]));
      expect(refreshed.hash).not.toBe(template.hash);
      expect(refreshed.updated_at).toEqual(now);
    });
    expect(await templates.requireTemplate(templates.connection, workspace, 'welcome')).toMatchObject({ name: 'Welcome!', strict: true, enabled_channels: ['email', 'sms'], updated_at: now });
  });

  it('writes, rewrites, reads, orders, counts and deletes variants of each mode', async () => {
    const workspace = await newWorkspace();
    const template = await created(workspace, 'orders');
    const other = await created(workspace, 'other');
    const firstWrite = now;
    const rows = [
      variant(template.id, 'draft', 'sms', 'sms-1'),
      variant(template.id, 'draft', 'email', 'email-de', { locale: 'de' }),
      variant(template.id, 'draft', 'email', 'email-tenant', { tenant_id: 'acme' }),
      variant(template.id, 'draft', 'email', 'email-2', { seq_no: 2 }),
      variant(template.id, 'draft', 'email', 'email-1'),
      variant(template.id, 'draft', 'androidpush', 'push'),
      variant(template.id, 'live', 'email', 'email-1'),
      variant(other.id, 'draft', 'email', 'email-1'),
    ];
    await templates.transaction(async (tx) => {
      for (const row of rows) await templates.writeVariant(tx, row);
    });

    // Channels in the interface's order (email, sms, ..., androidpush), then the default tenant first, locale, seq_no and id.
    expect(ids(await templates.variants(templates.connection, template.id, 'draft'))).toEqual(['email-de', 'email-1', 'email-2', 'email-tenant', 'sms-1', 'push']);
    expect(ids(await templates.variants(templates.connection, template.id, 'draft', { channel: 'email', page: { limit: 2, offset: 1 } }))).toEqual(['email-1', 'email-2']);
    expect(ids(await templates.variants(templates.connection, template.id, 'live'))).toEqual(['email-1']);
    expect(await templates.countVariants(templates.connection, template.id, 'draft')).toBe(6);
    expect(await templates.countVariants(templates.connection, template.id, 'draft', 'email')).toBe(4);
    expect(await templates.countVariants(templates.connection, template.id, 'live', 'sms')).toBe(0);
    expect(await templates.variant(templates.connection, template.id, 'draft', 'email', 'email-de')).toEqual(rows[1]);
    expect(await templates.variant(templates.connection, template.id, 'live', 'email', 'email-de')).toBeUndefined();

    const counts = await templates.channelCounts(templates.connection, [template.id, other.id, '00000000-0000-4000-8000-000000000000'], 'draft');
    expect(counts).toEqual(
      new Map([
        [template.id, new Map<Channel, number>([['email', 4], ['sms', 1], ['androidpush', 1]])],
        [other.id, new Map<Channel, number>([['email', 1]])],
        ['00000000-0000-4000-8000-000000000000', new Map()],
      ]),
    );
    expect(await templates.channelCounts(templates.connection, [], 'live')).toEqual(new Map());

    // A rewrite replaces everything but the key and the first write's created_at.
    now = new Date(now.getTime() + 60_000);
    const rewritten = variant(template.id, 'draft', 'email', 'email-de', {
      locale: 'fr',
      conditions: [{ type: 'expression_v1' }],
      content: { subject: 'Bonjour' },
      hash: 'hash-fr',
      errors: [{ path: 'html', message: 'is required' }],
      has_error: true,
      needs_vendor_approval: true,
      approval_status: 'approved',
      approval_at: now,
      discard_comment: 'fine',
      vendor_approvals: [],
      action: 'Updated',
      created_at: now,
      updated_at: now,
    });
    await templates.transaction((tx) => templates.writeVariant(tx, rewritten));
    expect(await templates.variant(templates.connection, template.id, 'draft', 'email', 'email-de')).toEqual({ ...rewritten, created_at: firstWrite });

    const deleted = await templates.transaction((tx) => templates.deleteVariant(tx, template.id, 'draft', 'email', 'email-de'));
    expect(deleted).toEqual({ ...rewritten, created_at: firstWrite });
    expect(await templates.transaction((tx) => templates.deleteVariant(tx, template.id, 'draft', 'email', 'email-de'))).toBeUndefined();
    expect(await templates.countVariants(templates.connection, template.id, 'draft', 'email')).toBe(3);
    expect(await templates.variant(templates.connection, template.id, 'live', 'email', 'email-1')).toBeDefined();
  });

  it('commits the planned variants over the live ones, numbers the versions and announces what is live', async () => {
    const workspace = await newWorkspace();
    const template = await created(workspace, 'invoice', 'Invoice');
    expect(await templates.templateSlugs(workspace.id)).toEqual(new Set());
    await templates.transaction((tx) => templates.writeVariant(tx, variant(template.id, 'live', 'sms', 'stale')));

    const live = meta('Invoice', ['email']);
    const firstLive = [variant(template.id, 'live', 'email', 'email-1', { action: 'Added' })];
    const committed = await templates.transaction(async (tx) => {
      const written = await templates.writeCommit(tx, template, firstLive, live, 'first', now);
      expect(written).toMatchObject({ live, version_no: 1, commit_message: 'first', active_at: now, revision: 0 });
      return templates.announce(tx, workspace, written, 'committed');
    });
    expect(committed.revision).toBe(1);
    expect(committed.live_hash).toBe(templateHash(live, firstLive));
    expect(ids(await templates.variants(templates.connection, template.id, 'live'))).toEqual(['email-1']);

    const secondLive = [variant(template.id, 'live', 'email', 'email-2')];
    const recommitted = await templates.transaction(async (tx) => templates.announce(tx, workspace, await templates.writeCommit(tx, committed, secondLive, live, null, now), 'committed'));
    expect(recommitted).toMatchObject({ version_no: 2, commit_message: null, revision: 2 });
    expect(ids(await templates.variants(templates.connection, template.id, 'live'))).toEqual(['email-2']);
    expect(await templates.templateSlugs(workspace.id)).toEqual(new Set(['invoice']));

    const changes = await announced(workspace);
    expect(changes.map((change) => [change.change, change.id, change.version])).toEqual([
      ['committed', 'invoice', 1],
      ['committed', 'invoice', 2],
    ]);
    expect(changes[1]).toMatchObject({ workspace_slug: workspace.slug, document: JSON.parse(JSON.stringify(liveDocument(recommitted, secondLive))) });

    // Announcing a template that has no live version yet carries no live hash.
    const draftOnly = await created(workspace, 'draft-only');
    expect((await templates.transaction((tx) => templates.announce(tx, workspace, draftOnly, 'upserted'))).live_hash).toBeNull();
  });

  it('lists a page of templates newest first, live ones as live, matching slug or name', async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    // One transaction: the same created_at, so the slug orders them.
    await templates.transaction(async (tx) => {
      await templates.createAndLock(tx, workspace, 'b-same-time', 'Same time B');
      await templates.createAndLock(tx, workspace, 'a-same-time', 'Same time A');
    });
    const newest = await created(workspace, 'newest_100%', 'Draft name');
    await created(other, 'elsewhere');
    await templates.transaction((tx) => templates.writeCommit(tx, newest, [], meta('Live name'), null, now));
    const slugs = (listed: { rows: TemplateRow[] }) => listed.rows.map((row) => row.slug);
    const page = { limit: 10, offset: 0 };

    const drafts = await templates.list(workspace, 'draft', undefined, page);
    expect({ count: drafts.count, slugs: slugs(drafts) }).toEqual({ count: 3, slugs: ['newest_100%', 'a-same-time', 'b-same-time'] });
    expect(drafts.rows[0]).toEqual(await templates.requireTemplate(templates.connection, workspace, 'newest_100%'));
    expect(slugs(await templates.list(workspace, 'draft', undefined, { limit: 1, offset: 1 }))).toEqual(['a-same-time']);
    expect((await templates.list(workspace, 'draft', undefined, { limit: 1, offset: 1 })).count).toBe(3);
    expect(slugs(await templates.list(workspace, 'live', undefined, page))).toEqual(['newest_100%']);

    expect(slugs(await templates.list(workspace, 'draft', 'SAME', page))).toEqual(['a-same-time', 'b-same-time']);
    expect(slugs(await templates.list(workspace, 'draft', 'draft name', page))).toEqual(['newest_100%']);
    expect(slugs(await templates.list(workspace, 'live', 'draft name', page))).toEqual([]);
    expect(slugs(await templates.list(workspace, 'live', 'live name', page))).toEqual(['newest_100%']);
    expect(slugs(await templates.list(workspace, 'draft', 'live name', page))).toEqual([]);
    // LIKE's wildcards in `q` are literal.
    expect(slugs(await templates.list(workspace, 'draft', '100%', page))).toEqual(['newest_100%']);
    expect(slugs(await templates.list(workspace, 'draft', '_', page))).toEqual(['newest_100%']);
    expect(await templates.list(workspace, 'draft', 'nothing', page)).toEqual({ count: 0, rows: [] });
  });

  it('keeps mock data per template, the defaults until set', async () => {
    const workspace = await newWorkspace();
    await created(workspace, 'mocked');
    await created(workspace, 'untouched');
    await expect(templates.mockData(workspace, 'missing')).rejects.toThrow("template (slug: 'missing') not found");
    await expect(templates.updateMockData(workspace, 'missing', (current) => current)).rejects.toThrow('not found');
    expect(await templates.mockData(workspace, 'mocked')).toEqual(DEFAULT_MOCK_DATA);

    const seen: MockData[] = [];
    const saved = await templates.updateMockData(workspace, 'mocked', (current) => {
      seen.push(current);
      return { ...current, payload: { order: { id: 42 } }, batch_count: 3 };
    });
    expect(seen).toEqual([DEFAULT_MOCK_DATA]);
    expect(saved).toEqual({ ...DEFAULT_MOCK_DATA, payload: { order: { id: 42 } }, batch_count: 3 });
    expect(await templates.mockData(workspace, 'mocked')).toEqual(saved);
    await templates.updateMockData(workspace, 'mocked', (current) => {
      seen.push(current);
      return { ...current, is_batch: true };
    });
    expect(seen[1]).toEqual(saved);
    expect(await templates.mockData(workspace, 'mocked')).toEqual({ ...saved, is_batch: true });
    expect(await templates.mockData(workspace, 'untouched')).toEqual(DEFAULT_MOCK_DATA);
    // Mock data is not part of what the template's rows show.
    expect(await templates.requireTemplate(templates.connection, workspace, 'mocked')).not.toHaveProperty('mock_data');
  });
});
