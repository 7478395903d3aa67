import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AudienceSubject } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { openEngineDatabase } from '../testing/repository-database';
import { AudienceRepository, RecipientRow, subjectKey } from './audience.repository';

describe.each(databaseTargets())('the audience repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let audience: AudienceRepository;

  beforeAll(async () => {
    const opened = await openEngineDatabase(target);
    db = opened.db;
    dispose = opened.close;
    audience = new AudienceRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const ada: AudienceSubject = { type: 'user', distinct_id: 'ada' };
  const grace: AudienceSubject = { type: 'user', distinct_id: 'grace' };
  const team: AudienceSubject = { type: 'object', object_type: 'teams', id: 'ops' };
  const profile = (name: string) => ({ properties: { name }, channels: { email: [`${name}@example.com`] } });
  const preferences = (category: string) => ({ categories: { [category]: { preference: 'opt_out' } }, restricted_channels: ['sms'] });
  /** Rows in a stable order (the statement's union has none). */
  const sorted = (rows: RecipientRow[]): RecipientRow[] => [...rows].sort((a, b) => `${a.source}/${a.tenant_id}`.localeCompare(`${b.source}/${b.tenant_id}`));
  /** The rows sorted, without the statement's numbering of the recipients asked. */
  const documents = (rows: RecipientRow[]): Array<Record<string, unknown>> => sorted(rows).map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => column !== 'i')));

  it('keys users and objects apart', () => {
    expect(subjectKey(ada)).toBe('user:ada');
    expect(subjectKey(team)).toBe('object:teams:ops');
  });

  it("reads a recipient's global and tenant profile and preferences and its tenant, per recipient asked and in the order asked", async () => {
    const workspace = randomUUID();
    await audience.saveProfile(workspace, ada, undefined, profile('ada'));
    await audience.saveProfile(workspace, ada, 'acme', profile('ada-at-acme'));
    await audience.saveProfile(workspace, ada, 'other', profile('ada-at-other'));
    await audience.savePreferences(workspace, ada, undefined, preferences('news'));
    await audience.savePreferences(workspace, ada, 'acme', preferences('billing'));
    await audience.saveTenant(workspace, 'acme', { name: 'Acme' }, { blocked_channels: ['sms'], categories: {} });
    await audience.saveProfile(randomUUID(), grace, undefined, profile('grace elsewhere'));

    expect(await audience.recipientRows([])).toEqual([]);
    const [inAcme, global, unknown, anonymous, elsewhere] = await audience.recipientRows([
      { workspaceId: workspace, subject: ada, tenantId: 'acme' },
      { workspaceId: workspace, subject: ada, tenantId: undefined },
      { workspaceId: workspace, subject: grace, tenantId: 'nowhere' },
      { workspaceId: workspace, subject: undefined, tenantId: 'acme' },
      { workspaceId: randomUUID(), subject: ada, tenantId: 'acme' },
    ]);
    expect(documents(inAcme)).toEqual([
      { source: 'preferences', tenant_id: '', document: preferences('news') },
      { source: 'preferences', tenant_id: 'acme', document: preferences('billing') },
      { source: 'profile', tenant_id: '', document: profile('ada') },
      { source: 'profile', tenant_id: 'acme', document: profile('ada-at-acme') },
      { source: 'tenant', tenant_id: 'acme', document: { tenant: { name: 'Acme' }, preferences: { blocked_channels: ['sms'], categories: {} } } },
    ]);
    expect(documents(global)).toEqual([
      { source: 'preferences', tenant_id: '', document: preferences('news') },
      { source: 'profile', tenant_id: '', document: profile('ada') },
    ]);
    expect(unknown).toEqual([]);
    expect(documents(anonymous)).toEqual([{ source: 'tenant', tenant_id: 'acme', document: { tenant: { name: 'Acme' }, preferences: { blocked_channels: ['sms'], categories: {} } } }]);
    expect(elsewhere).toEqual([]);
  });

  it('replaces a profile, preferences or tenant with the newer whole document', async () => {
    const workspace = randomUUID();
    await audience.saveProfile(workspace, team, undefined, profile('first'));
    await audience.saveProfile(workspace, team, undefined, profile('second'));
    await audience.savePreferences(workspace, team, undefined, preferences('first'));
    await audience.savePreferences(workspace, team, undefined, preferences('second'));
    await audience.saveTenant(workspace, 'acme', { name: 'Acme' }, { blocked_channels: ['sms'], categories: {} });
    // No defaults announced: nothing blocked, no category defaults.
    await audience.saveTenant(workspace, 'acme', { name: 'Acme Inc' }, undefined);
    const [rows] = await audience.recipientRows([{ workspaceId: workspace, subject: team, tenantId: 'acme' }]);
    expect(documents(rows)).toEqual([
      { source: 'preferences', tenant_id: '', document: preferences('second') },
      { source: 'profile', tenant_id: '', document: profile('second') },
      { source: 'tenant', tenant_id: 'acme', document: { tenant: { name: 'Acme Inc' }, preferences: { blocked_channels: [], categories: {} } } },
    ]);
  });

  it("removes a tenant's profile alone, and with the global profile every profile and preference of the recipient", async () => {
    const workspace = randomUUID();
    const sources = async (subject: AudienceSubject) =>
      sorted((await audience.recipientRows([{ workspaceId: workspace, subject, tenantId: 'acme' }]))[0]).map((row) => `${row.source}/${row.tenant_id}`);
    for (const subject of [ada, grace]) {
      await audience.saveProfile(workspace, subject, undefined, profile('global'));
      await audience.saveProfile(workspace, subject, 'acme', profile('acme'));
      await audience.savePreferences(workspace, subject, undefined, preferences('news'));
      await audience.savePreferences(workspace, subject, 'acme', preferences('news'));
    }
    await audience.removeProfile(workspace, ada, 'acme');
    expect(await sources(ada)).toEqual(['preferences/', 'preferences/acme', 'profile/']);
    await audience.saveProfile(workspace, ada, 'acme', profile('acme'));
    await audience.removeProfile(workspace, ada, undefined);
    expect(await sources(ada)).toEqual([]);
    expect(await sources(grace)).toEqual(['preferences/', 'preferences/acme', 'profile/', 'profile/acme']);
  });

  it('removes a tenant of one workspace', async () => {
    const workspace = randomUUID();
    const other = randomUUID();
    await audience.saveTenant(workspace, 'acme', { name: 'Acme' }, undefined);
    await audience.saveTenant(other, 'acme', { name: 'Acme' }, undefined);
    await audience.removeTenant(workspace, 'acme');
    await audience.removeTenant(workspace, 'never-stored');
    const [gone, kept] = await audience.recipientRows([
      { workspaceId: workspace, subject: undefined, tenantId: 'acme' },
      { workspaceId: other, subject: undefined, tenantId: 'acme' },
    ]);
    expect(gone).toEqual([]);
    expect(kept.map((row) => row.source)).toEqual(['tenant']);
  });

  it("subscribes and unsubscribes an object's subscribers, answering them by subscriber with the relation's properties", async () => {
    const workspace = randomUUID();
    const object = { object_type: 'teams', id: 'ops' };
    const lead: AudienceSubject = { type: 'object', object_type: 'teams', id: 'leads' };
    expect(await audience.subscribers(workspace, object)).toEqual([]);
    await audience.updateSubscriptions(workspace, object, { removed: [], added: [grace, ada], properties: { role: 'member' } });
    await audience.updateSubscriptions(workspace, object, { removed: [], added: [lead], properties: {} });
    await audience.updateSubscriptions(workspace, { object_type: 'teams', id: 'dev' }, { removed: [], added: [ada], properties: {} });
    expect(await audience.subscribers(workspace, object)).toEqual([
      { subscriber: lead, properties: {} },
      { subscriber: ada, properties: { role: 'member' } },
      { subscriber: grace, properties: { role: 'member' } },
    ]);
    // Removed first, then added: a subscriber in both is subscribed, with the new properties.
    await audience.updateSubscriptions(workspace, object, { removed: [grace, ada, team], added: [ada], properties: { role: 'owner' } });
    expect(await audience.subscribers(workspace, object)).toEqual([
      { subscriber: lead, properties: {} },
      { subscriber: ada, properties: { role: 'owner' } },
    ]);
    expect(await audience.subscribers(randomUUID(), object)).toEqual([]);
    expect(await audience.subscribers(workspace, { object_type: 'teams', id: 'dev' })).toEqual([{ subscriber: ada, properties: {} }]);
  });
});
