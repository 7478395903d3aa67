import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DefinitionChanged, HeraldError } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { vendorSpecOf } from './vendor-catalogue';
import { VendorCredentials } from './vendor-credentials';
import { VendorRepository, documentOf } from './vendor.repository';

describe.each(databaseTargets())('the vendor repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let vendors: VendorRepository;
  let credentials: VendorCredentials;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    credentials = new VendorCredentials(randomBytes(32));
    vendors = new VendorRepository(db, credentials, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const sendgrid = vendorSpecOf('email', 'sendgrid');
  const resend = vendorSpecOf('email', 'resend');
  const twilio = vendorSpecOf('sms', 'twilio');
  const sendgridKey = { api_key: 'SG.sendgrid-key-0123456789abcdef' };
  const resendKey = { api_key: 're_resend-key-0123456789abcdef' };
  const twilioKeys = { account_sid: `AC${'0123456789abcdef'.repeat(2)}`, auth_token: 'twilio-auth-token-0123456789', from: '+14155550142' };

  /** The workspace's vendor announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'vendor', workspace);
  async function storedRow(id: string): Promise<{ credentials_sealed: Buffer | null; deleted_at: Date | null; version: number }> {
    const [row]: Array<{ credentials_sealed: Buffer | null; deleted_at: Date | null; version: number }> = await db.query(
      `SELECT credentials_sealed, deleted_at, version FROM management.vendors WHERE id = $1`,
      [id],
    );
    return row;
  }

  it('configures a vendor with the defaults, sealed, and announces its whole configuration', async () => {
    const workspace = await newWorkspace();
    await expect(vendors.get(workspace, sendgrid)).rejects.toThrow("vendor 'email/sendgrid' is not configured");

    const { vendor, created } = await vendors.put(workspace, sendgrid, { priority: 10, credentials: sendgridKey });

    expect(created).toBe(true);
    expect(vendor).toEqual({
      id: expect.any(String),
      workspaceId: workspace.id,
      channel: 'email',
      vendor: 'sendgrid',
      isEnabled: true,
      priority: 10,
      baseUrl: null,
      settings: {},
      credentialsSealed: expect.any(Buffer),
      version: 1,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
      deletedAt: null,
    });
    expect(credentials.open(vendor.id, vendor.credentialsSealed as Buffer)).toEqual(sendgridKey);
    expect(await vendors.get(workspace, sendgrid)).toEqual(vendor);
    expect(vendors.baseUrl(vendor)).toBe('https://api.sendgrid.com');

    expect(await announced(workspace)).toEqual([
      {
        kind: 'vendor',
        change: 'upserted',
        workspace_id: workspace.id,
        workspace_slug: workspace.slug,
        id: 'email/sendgrid',
        version: 1,
        document: documentOf(vendor, 'https://api.sendgrid.com'),
      },
    ]);
  });

  it('updates only what a PUT gives, keeping the credentials, and counts the version up', async () => {
    const workspace = await newWorkspace();
    const { vendor: first } = await vendors.put(workspace, sendgrid, { priority: 10, credentials: sendgridKey });

    const { vendor, created } = await vendors.put(workspace, sendgrid, { settings: { sandbox: true }, is_enabled: false, base_url: 'https://eu.sendgrid.example/' });

    expect(created).toBe(false);
    expect(vendor).toEqual({
      ...first,
      isEnabled: false,
      baseUrl: 'https://eu.sendgrid.example',
      settings: { sandbox: true },
      credentialsSealed: first.credentialsSealed,
      version: 2,
      updatedAt: expect.any(Date),
    });
    expect(vendor.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
    expect(vendors.baseUrl(vendor)).toBe('https://eu.sendgrid.example');

    // New credentials are sealed anew; base_url null returns to the default.
    const { vendor: rotated } = await vendors.put(workspace, sendgrid, { credentials: { api_key: 'SG.rotated-key-9876543210' }, base_url: null });
    expect(credentials.open(rotated.id, rotated.credentialsSealed as Buffer)).toEqual({ api_key: 'SG.rotated-key-9876543210' });
    expect(rotated).toMatchObject({ baseUrl: null, settings: { sandbox: true }, isEnabled: false, version: 3 });
    expect((await announced(workspace)).map((change) => [change.change, change.version])).toEqual([
      ['upserted', 1],
      ['upserted', 2],
      ['upserted', 3],
    ]);
  });

  it('refuses a priority another live vendor of the channel holds, writing nothing', async () => {
    const workspace = await newWorkspace();
    await vendors.put(workspace, sendgrid, { priority: 10, credentials: sendgridKey });
    const { vendor: second } = await vendors.put(workspace, resend, { priority: 20, credentials: resendKey });

    await expect(vendors.put(workspace, twilio, { priority: 10, credentials: twilioKeys })).resolves.toMatchObject({ created: true });
    await expect(vendors.put(workspace, resend, { priority: 10 })).rejects.toThrow("priority 10 of channel 'email' is already taken by 'sendgrid'");
    await expect(vendors.put(workspace, resend, { priority: 20, settings: { reply_to: 'a@example.com' } })).resolves.toMatchObject({ created: false });
    expect((await vendors.get(workspace, resend)).priority).toBe(20);

    expect((await storedRow(second.id)).version).toBe(2);
    expect((await announced(workspace)).filter((change) => change.id === 'email/resend').map((change) => change.version)).toEqual([1, 2]);
    await expect(vendors.put(workspace, resend, { priority: 30, credentials: resendKey })).resolves.toMatchObject({ vendor: { priority: 30, version: 3 } });
    // A first configuration is refused too; another workspace's priorities are its own.
    await expect(vendors.put(workspace, vendorSpecOf('email', 'postmark'), { priority: 10, credentials: { server_token: 'pm-server-token-0123456789abcdef' } })).rejects.toThrow(
      "is already taken by 'sendgrid'",
    );
    await expect(vendors.get(workspace, vendorSpecOf('email', 'postmark'))).rejects.toThrow('not configured');
    const other = await newWorkspace();
    await expect(vendors.put(other, resend, { priority: 10, credentials: resendKey })).resolves.toMatchObject({ created: true });
  });

  it('writes nothing when the body is invalid', async () => {
    const workspace = await newWorkspace();
    const missing: unknown = await vendors.put(workspace, sendgrid, { credentials: sendgridKey }).catch((error: unknown) => error);
    expect((missing as HeraldError).fieldErrors.map((error) => error.path)).toContain('priority');
    await expect(vendors.put(workspace, sendgrid, { priority: 10, credentials: sendgridKey, settings: { api_key: 'x' } })).rejects.toThrow();
    await expect(vendors.get(workspace, sendgrid)).rejects.toThrow('not configured');
    expect(await announced(workspace)).toEqual([]);
  });

  it('deletes a vendor, keeping its row without credentials, and configures it again on its row', async () => {
    const workspace = await newWorkspace();
    await expect(vendors.remove(workspace, sendgrid)).rejects.toThrow("vendor 'email/sendgrid' is not configured");
    const { vendor: first } = await vendors.put(workspace, sendgrid, { priority: 10, credentials: sendgridKey, settings: { sandbox: true } });

    await vendors.remove(workspace, sendgrid);

    await expect(vendors.get(workspace, sendgrid)).rejects.toThrow('not configured');
    await expect(vendors.remove(workspace, sendgrid)).rejects.toThrow('not configured');
    expect((await vendors.list(workspace, null, { limit: 10, offset: 0 })).count).toBe(0);
    expect(await storedRow(first.id)).toEqual({ credentials_sealed: null, deleted_at: expect.any(Date), version: 2 });
    // Its priority is free again.
    await vendors.put(workspace, resend, { priority: 10, credentials: resendKey });

    const { vendor: again, created } = await vendors.put(workspace, sendgrid, { priority: 30, credentials: sendgridKey });
    expect(created).toBe(true);
    expect(again).toMatchObject({ id: first.id, priority: 30, settings: {}, isEnabled: true, version: 3, deletedAt: null });
    expect(credentials.open(again.id, again.credentialsSealed as Buffer)).toEqual(sendgridKey);

    const changes = (await announced(workspace)).filter((change) => change.id === 'email/sendgrid');
    expect(changes.map((change) => [change.change, change.version, change.document === undefined])).toEqual([
      ['upserted', 1, false],
      ['deleted', 2, true],
      ['upserted', 3, false],
    ]);
  });

  it('lists the live vendors by channel, priority and vendor, a page at a time, of one channel or all', async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await vendors.put(workspace, twilio, { priority: 5, credentials: twilioKeys });
    await vendors.put(workspace, sendgrid, { priority: 20, credentials: sendgridKey });
    await vendors.put(workspace, resend, { priority: 10, credentials: resendKey });
    await vendors.put(other, sendgrid, { priority: 1, credentials: sendgridKey });
    const names = (listed: { vendors: Array<{ channel: string; vendor: string }> }) => listed.vendors.map((vendor) => `${vendor.channel}/${vendor.vendor}`);

    const all = await vendors.list(workspace, null, { limit: 10, offset: 0 });
    expect(all.count).toBe(3);
    expect(names(all)).toEqual(['email/resend', 'email/sendgrid', 'sms/twilio']);
    expect(all.vendors[0]).toEqual(await vendors.get(workspace, resend));

    const page = await vendors.list(workspace, null, { limit: 1, offset: 1 });
    expect({ count: page.count, names: names(page) }).toEqual({ count: 3, names: ['email/sendgrid'] });
    const email = await vendors.list(workspace, 'email', { limit: 10, offset: 0 });
    expect({ count: email.count, names: names(email) }).toEqual({ count: 2, names: ['email/resend', 'email/sendgrid'] });
    expect(await vendors.list(workspace, 'whatsapp', { limit: 10, offset: 0 })).toEqual({ count: 0, vendors: [] });

    await vendors.remove(workspace, resend);
    expect(names(await vendors.list(workspace, 'email', { limit: 10, offset: 0 }))).toEqual(['email/sendgrid']);
  });
});
