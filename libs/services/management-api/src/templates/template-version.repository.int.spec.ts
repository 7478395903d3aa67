import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { TemplateMeta } from './template-rows';
import { TemplateVersionRepository, VersionedVariant } from './template-version.repository';

describe.each(databaseTargets())('the template version repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let versions: TemplateVersionRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    versions = new TemplateVersionRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** A template never committed (no live metadata, no version), written as the template store writes it. */
  async function newTemplate(workspace?: ScopedWorkspace): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO management.templates (id, workspace_id, slug, name, hash) VALUES ($1, $2, $3, 'Receipt', 'draft-hash')`, [
      id,
      (workspace ?? (await newWorkspace())).id,
      `receipt-${id.slice(0, 8)}`,
    ]);
    return id;
  }

  type Variant = Omit<VersionedVariant, 'needs_vendor_approval' | 'conditions'> & Partial<Pick<VersionedVariant, 'needs_vendor_approval' | 'conditions'>>;
  async function writeVariant(tx: EntityManager, templateId: string, mode: 'draft' | 'live', variant: Variant): Promise<void> {
    await tx.query(
      `INSERT INTO management.template_variants (template_id, mode, channel, id, tenant_id, locale, conditions, content, hash, has_error, seq_no, needs_vendor_approval, approval_status)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, 'h', false, $9, $10, 'approved')`,
      [templateId, mode, variant.channel, variant.id, variant.tenant_id, variant.locale, JSON.stringify(variant.conditions ?? []), JSON.stringify(variant.content), variant.seq_no, variant.needs_vendor_approval ?? false],
    );
  }

  /** A commit as the template store makes one: live metadata, the next version, live variants replaced; then the version recorded in the same transaction. */
  async function commit(templateId: string, meta: TemplateMeta, variants: Variant[], options: { message?: string | null; at: Date; liveHash?: string | null }): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.query(
        `UPDATE management.templates SET live = $2::jsonb, version_no = coalesce(version_no, 0) + 1, commit_message = $3, active_at = $4, live_hash = $5 WHERE id = $1`,
        [templateId, JSON.stringify(meta), options.message ?? null, options.at, options.liveHash === undefined ? `live-${options.at.getTime()}` : options.liveHash],
      );
      await tx.query(`DELETE FROM management.template_variants WHERE template_id = $1 AND mode = 'live'`, [templateId]);
      for (const variant of variants) await writeVariant(tx, templateId, 'live', variant);
      await versions.recordLive(tx, templateId);
    });
  }

  const meta = (name: string): TemplateMeta => ({ name, description: null, tags: ['billing'], enabled_channels: ['email', 'sms'], strict: false });
  const email = (id: string, subject: string, extra: Partial<Variant> = {}): Variant => ({ channel: 'email', id, tenant_id: null, locale: 'en', content: { subject }, seq_no: 1, ...extra });

  it('records the live version as it is in the transaction: its metadata, message, time, hash and live variants only', async () => {
    const template = await newTemplate();
    // A draft variant is not part of what went live.
    await db.transaction((tx) => writeVariant(tx, template, 'draft', email('draft-only', 'Draft')));
    const at = new Date('2026-03-01T10:00:00Z');

    await commit(template, meta('Receipt'), [email('default', 'Receipt {{n}}', { conditions: [{ op: 'eq' }], needs_vendor_approval: true })], { message: 'first', at, liveHash: 'hash-1' });

    expect(await versions.find(template, 1)).toEqual({
      templateId: template,
      versionNo: 1,
      commitMessage: 'first',
      committedAt: at,
      meta: meta('Receipt'),
      variants: [{ channel: 'email', id: 'default', tenant_id: null, locale: 'en', conditions: [{ op: 'eq' }], content: { subject: 'Receipt {{n}}' }, seq_no: 1, needs_vendor_approval: true }],
      hash: 'hash-1',
    });
  });

  it('orders a version’s variants by channel (in the template views’ order, not by name), tenant (default first), locale and seq_no', async () => {
    const template = await newTemplate();
    const variants: Variant[] = [
      { channel: 'inbox', id: 'i', tenant_id: null, locale: 'en', content: { header: 'inbox' }, seq_no: 1 },
      { channel: 'sms', id: 'b', tenant_id: null, locale: 'en', content: { text: 'sms' }, seq_no: 1 },
      email('e4', 'acme fr', { tenant_id: 'acme', locale: 'fr' }),
      email('e3', 'acme en', { tenant_id: 'acme', locale: 'en' }),
      email('e2', 'default en 2', { seq_no: 2 }),
      email('e1', 'default en 1', { seq_no: 1 }),
    ];

    await commit(template, meta('Receipt'), variants, { at: new Date('2026-03-01T10:00:00Z') });

    expect((await versions.find(template, 1))?.variants.map((variant) => variant.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'b', 'i']);
  });

  it('records nothing for a template never committed, and an empty list for a commit without variants', async () => {
    const template = await newTemplate();
    await db.transaction((tx) => versions.recordLive(tx, template));
    await db.transaction((tx) => versions.recordLive(tx, randomUUID()));
    expect(await versions.history(template)).toEqual([]);

    // A live hash not set yet is recorded as '' (the column is NOT NULL).
    await commit(template, meta('Empty'), [], { message: null, at: new Date('2026-03-01T10:00:00Z'), liveHash: null });
    expect(await versions.find(template, 1)).toMatchObject({ commitMessage: null, variants: [], hash: '' });
  });

  it('records a version once: recording it again keeps the first snapshot', async () => {
    const template = await newTemplate();
    await commit(template, meta('Receipt'), [email('default', 'First')], { message: 'first', at: new Date('2026-03-01T10:00:00Z'), liveHash: 'hash-1' });

    await db.transaction(async (tx) => {
      await tx.query(`UPDATE management.templates SET live = $2::jsonb, live_hash = 'changed' WHERE id = $1`, [template, JSON.stringify(meta('Changed'))]);
      await versions.recordLive(tx, template);
    });

    expect(await versions.history(template)).toHaveLength(1);
    expect(await versions.find(template, 1)).toMatchObject({ meta: meta('Receipt'), hash: 'hash-1' });
  });

  it('records in the caller’s transaction: a commit rolled back leaves no version', async () => {
    const template = await newTemplate();
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`UPDATE management.templates SET live = $2::jsonb, version_no = 1, active_at = now(), live_hash = 'h' WHERE id = $1`, [template, JSON.stringify(meta('Receipt'))]);
        await versions.recordLive(tx, template);
        throw new Error('the commit fails after recording');
      }),
    ).rejects.toThrow('the commit fails after recording');

    expect(await versions.history(template)).toEqual([]);
    expect(await versions.find(template, 1)).toBeNull();
  });

  it('answers the history newest first, each version with how many variants it had and without their content', async () => {
    const workspace = await newWorkspace();
    const template = await newTemplate(workspace);
    const other = await newTemplate(workspace);
    await commit(template, meta('One'), [email('a', 'A')], { message: 'first', at: new Date('2026-03-01T10:00:00Z'), liveHash: 'hash-1' });
    await commit(other, meta('Other'), [email('x', 'X')], { message: 'elsewhere', at: new Date('2026-03-01T10:30:00Z') });
    await commit(template, meta('Two'), [email('a', 'A'), email('b', 'B', { seq_no: 2 }), { channel: 'sms', id: 's', tenant_id: null, locale: 'en', content: { text: 'S' }, seq_no: 1 }], {
      message: 'second',
      at: new Date('2026-03-01T11:00:00Z'),
      liveHash: 'hash-2',
    });
    await commit(template, meta('Three'), [], { message: 'third', at: new Date('2026-03-01T12:00:00Z'), liveHash: 'hash-3' });

    const history = await versions.history(template);

    expect(history).toEqual([
      { templateId: template, versionNo: 3, commitMessage: 'third', committedAt: new Date('2026-03-01T12:00:00Z'), meta: meta('Three'), hash: 'hash-3', variantsCount: 0 },
      { templateId: template, versionNo: 2, commitMessage: 'second', committedAt: new Date('2026-03-01T11:00:00Z'), meta: meta('Two'), hash: 'hash-2', variantsCount: 3 },
      { templateId: template, versionNo: 1, commitMessage: 'first', committedAt: new Date('2026-03-01T10:00:00Z'), meta: meta('One'), hash: 'hash-1', variantsCount: 1 },
    ]);
    for (const version of history) expect(version).not.toHaveProperty('variants');
    expect((await versions.history(other)).map((version) => version.commitMessage)).toEqual(['elsewhere']);
    expect(await versions.history(randomUUID())).toEqual([]);
  });

  it('finds a version of the template only, each with its own variants', async () => {
    const template = await newTemplate();
    const other = await newTemplate();
    await commit(template, meta('One'), [email('a', 'First')], { at: new Date('2026-03-01T10:00:00Z') });
    await commit(template, meta('Two'), [email('a', 'Second')], { at: new Date('2026-03-01T11:00:00Z') });
    await commit(other, meta('Other'), [email('a', 'Other')], { at: new Date('2026-03-01T11:00:00Z') });

    expect((await versions.find(template, 1))?.variants.map((variant) => variant.content)).toEqual([{ subject: 'First' }]);
    expect((await versions.find(template, 2))?.variants.map((variant) => variant.content)).toEqual([{ subject: 'Second' }]);
    expect((await versions.find(other, 1))?.meta.name).toBe('Other');
    expect(await versions.find(other, 2)).toBeNull();
    expect(await versions.find(template, 3)).toBeNull();
    expect(await versions.find(randomUUID(), 1)).toBeNull();
  });
});
