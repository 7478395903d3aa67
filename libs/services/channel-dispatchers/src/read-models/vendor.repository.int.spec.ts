import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Channel } from '@herald/contracts';
import { HeraldLogger, SecretBox } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { AnnouncedVendor, VendorRepository } from './vendor.repository';

describe.each(databaseTargets())('the vendor repository ($kind)', (target) => {
  const box = new SecretBox(randomBytes(32));
  const logged: string[] = [];
  const logger = new HeraldLogger('test', 'error', { write: (line) => void logged.push(line) });
  let db: DataSource;
  let dispose: () => Promise<void>;
  let vendors: VendorRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    vendors = new VendorRepository(db, box, logger);
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** A configuration as management-api announces it: the credentials sealed with `vendor:<id>`. */
  function announced(workspaceId: string, channel: Channel, vendor: string, fields: Partial<Omit<AnnouncedVendor, 'credentialsSealed'>> & { credentials?: Record<string, string> } = {}): Omit<AnnouncedVendor, 'isDeleted'> {
    const { credentials = { api_key: `key-of-${vendor}` }, ...rest } = fields;
    const vendorId = rest.vendorId ?? randomUUID();
    return {
      workspaceId,
      channel,
      vendor,
      vendorId,
      isEnabled: true,
      priority: 1,
      baseUrl: null,
      settings: {},
      version: 1,
      ...rest,
      credentialsSealed: box.seal(JSON.stringify(credentials), `vendor:${vendorId}`).toString('base64'),
    };
  }

  it("answers a workspace channel's enabled vendors, highest priority first, with their credentials opened", async () => {
    const workspace = randomUUID();
    const postmark = announced(workspace, 'email', 'postmark', { priority: 2, baseUrl: 'https://api.postmarkapp.com', settings: { message_stream: 'outbound', track: { opens: true } } });
    const sendgrid = announced(workspace, 'email', 'sendgrid', { priority: 1 });
    await vendors.save(postmark);
    await vendors.save(sendgrid);
    await vendors.save(announced(workspace, 'email', 'mailgun', { priority: 0, isEnabled: false }));
    await vendors.save(announced(workspace, 'sms', 'twilio'));
    await vendors.save(announced(randomUUID(), 'email', 'ses'));
    expect(await vendors.enabledOf(workspace, 'email')).toEqual([
      { id: sendgrid.vendorId, channel: 'email', vendor: 'sendgrid', priority: 1, baseUrl: null, settings: {}, credentials: { api_key: 'key-of-sendgrid' }, version: 1 },
      {
        id: postmark.vendorId,
        channel: 'email',
        vendor: 'postmark',
        priority: 2,
        baseUrl: 'https://api.postmarkapp.com',
        settings: { message_stream: 'outbound', track: { opens: true } },
        credentials: { api_key: 'key-of-postmark' },
        version: 1,
      },
    ]);
    expect(await vendors.enabledOf(workspace, 'webpush')).toEqual([]);
  });

  it('finds a configuration by its id, enabled or not, never a deleted one or one that is no id', async () => {
    const workspace = randomUUID();
    const disabled = announced(workspace, 'whatsapp', 'meta_cloud', { isEnabled: false });
    await vendors.save(disabled);
    expect(await vendors.byId(disabled.vendorId)).toEqual({
      id: disabled.vendorId,
      workspaceId: workspace,
      channel: 'whatsapp',
      vendor: 'meta_cloud',
      priority: 1,
      baseUrl: null,
      settings: {},
      credentials: { api_key: 'key-of-meta_cloud' },
      version: 1,
    });
    expect(await vendors.byId(randomUUID())).toBeUndefined();
    expect(await vendors.byId('not-a-uuid')).toBeUndefined();
    await vendors.markDeleted(disabled, 2);
    expect(await vendors.byId(disabled.vendorId)).toBeUndefined();
  });

  it('applies each version once and in order: an older save or deletion changes nothing, a newer save undeletes', async () => {
    const workspace = randomUUID();
    const vendorId = randomUUID();
    const sendgrid = { workspaceId: workspace, channel: 'email', vendor: 'sendgrid' } as const;
    await vendors.save(announced(workspace, 'email', 'sendgrid', { vendorId, version: 3, credentials: { api_key: 'third' } }));
    await vendors.save(announced(workspace, 'email', 'sendgrid', { vendorId, version: 2, credentials: { api_key: 'second' } }));
    await vendors.save(announced(workspace, 'email', 'sendgrid', { vendorId, version: 3, credentials: { api_key: 'third again' } }));
    await vendors.markDeleted(sendgrid, 3);
    expect((await vendors.enabledOf(workspace, 'email')).map((vendor) => [vendor.version, vendor.credentials])).toEqual([[3, { api_key: 'third' }]]);

    await vendors.markDeleted(sendgrid, 4);
    expect(await vendors.enabledOf(workspace, 'email')).toEqual([]);
    // The deletion keeps its version and drops the credentials: an older save does not bring the vendor back.
    expect(await db.query(`SELECT version, is_deleted, credentials_sealed FROM dispatch.vendors WHERE workspace_id = $1`, [workspace])).toEqual([
      { version: 4, is_deleted: true, credentials_sealed: null },
    ]);
    await vendors.save(announced(workspace, 'email', 'sendgrid', { vendorId, version: 4 }));
    expect(await vendors.enabledOf(workspace, 'email')).toEqual([]);

    await vendors.save(announced(workspace, 'email', 'sendgrid', { vendorId, version: 5, credentials: { api_key: 'fifth' } }));
    expect((await vendors.enabledOf(workspace, 'email')).map((vendor) => [vendor.version, vendor.credentials])).toEqual([[5, { api_key: 'fifth' }]]);
    // Deleting a vendor never announced is nothing.
    await vendors.markDeleted({ workspaceId: workspace, channel: 'sms', vendor: 'twilio' }, 1);
    expect(await vendors.enabledOf(workspace, 'sms')).toEqual([]);
  });

  it('leaves out (and logs) a configuration whose credentials do not open', async () => {
    const workspace = randomUUID();
    const opens = announced(workspace, 'sms', 'twilio', { priority: 1 });
    // Sealed for another vendor's id: copied between rows, it does not open.
    const copied = { ...announced(workspace, 'sms', 'plivo', { priority: 2 }), credentialsSealed: opens.credentialsSealed };
    await vendors.save(opens);
    await vendors.save(copied);
    expect((await vendors.enabledOf(workspace, 'sms')).map((vendor) => vendor.vendor)).toEqual(['twilio']);
    expect(await vendors.byId(copied.vendorId)).toBeUndefined();
    expect(logged.join('')).toContain("cannot open a vendor's credentials");
  });
});
