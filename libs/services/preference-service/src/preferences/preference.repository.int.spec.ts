import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AudienceChanged, AudienceSubject } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { openAudienceDatabase } from '../testing/repository-database';
import { PreferenceRepository } from './preference.repository';
import { preferencesMessage } from './preferences';

const user = (distinct_id: string): AudienceSubject => ({ type: 'user', distinct_id });
const object = (object_type: string, id: string): AudienceSubject => ({ type: 'object', object_type, id });
const none = { categories: {}, restricted_channels: [] };

describe.each(databaseTargets())('the preference repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let preferences: PreferenceRepository;
  const now = new Date('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    preferences = new PreferenceRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newWorkspace = (): AuthenticatedWorkspace => {
    const id = randomUUID();
    return { id, slug: `ws-${id.slice(0, 8)}` };
  };
  const restrict = (...channels: string[]) => channels.map((channel) => ({ channel, is_restricted: true }));
  const allow = (...channels: string[]) => channels.map((channel) => ({ channel, is_restricted: false }));

  /** The workspace's announcements, in order. */
  async function announced(ws: AuthenticatedWorkspace): Promise<AudienceChanged[]> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${AUDIENCE_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => JSON.parse(row.value) as { workspace_id: string; payload: AudienceChanged })
      .filter((envelope) => envelope.workspace_id === ws.id)
      .map((envelope) => envelope.payload);
  }

  describe('layer', () => {
    it('answers no choices and no restrictions for a recipient with none', async () => {
      const ws = newWorkspace();
      expect(await preferences.layer(ws, user('ana'), undefined)).toEqual(none);
      expect(await preferences.layer(ws, user('ana'), 'acme')).toEqual(none);
      expect(await preferences.transaction((tx) => preferences.layer(ws, object('teams', 'devs'), undefined, tx))).toEqual(none);
    });

    it("keeps each scope, subject and workspace's choices apart", async () => {
      const ws = newWorkspace();
      await preferences.transaction(async (tx) => {
        await preferences.saveCategory(tx, ws, user('devs'), undefined, 'news', { preference: 'opt_out' });
        await preferences.saveCategory(tx, ws, user('devs'), 'acme', 'news', { preference: 'opt_in', opt_out_channels: ['sms'] });
        await preferences.saveChannels(tx, ws, user('devs'), 'acme', restrict('email'));
        await preferences.saveChannels(tx, ws, object('teams', 'devs'), undefined, restrict('push'));
      });
      expect(await preferences.layer(ws, user('devs'), undefined)).toEqual({ categories: { news: { preference: 'opt_out' } }, restricted_channels: [] });
      expect(await preferences.layer(ws, user('devs'), 'acme')).toEqual({
        categories: { news: { preference: 'opt_in', opt_out_channels: ['sms'] } },
        restricted_channels: ['email'],
      });
      expect(await preferences.layer(ws, user('devs'), 'other')).toEqual(none);
      expect(await preferences.layer(ws, object('teams', 'devs'), undefined)).toEqual({ categories: {}, restricted_channels: ['push'] });
      expect(await preferences.layer(ws, object('squads', 'devs'), undefined)).toEqual(none);
      expect(await preferences.layer(newWorkspace(), user('devs'), undefined)).toEqual(none);
    });
  });

  describe('saveCategory', () => {
    it("replaces the category's choice whole, leaving the other categories", async () => {
      const ws = newWorkspace();
      await preferences.transaction(async (tx) => {
        await preferences.saveCategory(tx, ws, user('bo'), undefined, 'news', { preference: 'opt_in', opt_out_channels: ['email'] });
        await preferences.saveCategory(tx, ws, user('bo'), undefined, 'billing', { preference: 'opt_out' });
      });
      await preferences.transaction((tx) => preferences.saveCategory(tx, ws, user('bo'), undefined, 'news', { preference: 'opt_out', digest_schedule: null }));
      expect(await preferences.layer(ws, user('bo'), undefined)).toEqual({
        categories: { news: { preference: 'opt_out', digest_schedule: null }, billing: { preference: 'opt_out' } },
        restricted_channels: [],
      });
    });
  });

  describe('saveChannels', () => {
    it('restricts and lifts restrictions per channel, in the given order, and lists the restricted ones by name', async () => {
      const ws = newWorkspace();
      await preferences.transaction((tx) => preferences.saveChannels(tx, ws, user('cy'), undefined, [...restrict('sms', 'email', 'push'), ...allow('whatsapp')]));
      expect((await preferences.layer(ws, user('cy'), undefined)).restricted_channels).toEqual(['email', 'push', 'sms']);
      // The later item for one channel wins.
      await preferences.transaction((tx) => preferences.saveChannels(tx, ws, user('cy'), undefined, [...allow('push'), ...restrict('whatsapp'), ...allow('whatsapp')]));
      expect((await preferences.layer(ws, user('cy'), undefined)).restricted_channels).toEqual(['email', 'sms']);
      await preferences.transaction((tx) => preferences.saveChannels(tx, ws, user('cy'), undefined, []));
      expect((await preferences.layer(ws, user('cy'), undefined)).restricted_channels).toEqual(['email', 'sms']);
    });
  });

  describe('reset', () => {
    it('forgets the channel restrictions and/or the category choices of one scope', async () => {
      const ws = newWorkspace();
      const fill = (tenantId?: string) =>
        preferences.transaction(async (tx) => {
          await preferences.saveCategory(tx, ws, user('dee'), tenantId, 'news', { preference: 'opt_out' });
          await preferences.saveChannels(tx, ws, user('dee'), tenantId, restrict('sms'));
        });
      await fill();
      await fill('acme');
      const full = { categories: { news: { preference: 'opt_out' } }, restricted_channels: ['sms'] };

      await preferences.transaction((tx) => preferences.reset(tx, ws, user('dee'), 'acme', { channels: true, categories: false }));
      expect(await preferences.layer(ws, user('dee'), 'acme')).toEqual({ ...full, restricted_channels: [] });
      expect(await preferences.layer(ws, user('dee'), undefined)).toEqual(full);

      await preferences.transaction((tx) => preferences.reset(tx, ws, user('dee'), undefined, { channels: false, categories: true }));
      expect(await preferences.layer(ws, user('dee'), undefined)).toEqual({ ...full, categories: {} });

      await preferences.transaction((tx) => preferences.reset(tx, ws, user('dee'), 'acme', { channels: true, categories: true }));
      expect(await preferences.layer(ws, user('dee'), 'acme')).toEqual(none);
      await preferences.transaction((tx) => preferences.reset(tx, ws, user('dee'), undefined, { channels: false, categories: false }));
      expect(await preferences.layer(ws, user('dee'), undefined)).toEqual({ categories: {}, restricted_channels: ['sms'] });
    });
  });

  describe('announce and transaction', () => {
    it("writes the announcements in the change's transaction", async () => {
      const ws = newWorkspace();
      const layer = { categories: { news: { preference: 'opt_out' as const } }, restricted_channels: ['sms'] };
      await preferences.transaction(async (tx) => {
        await preferences.saveCategory(tx, ws, user('eve'), 'acme', 'news', { preference: 'opt_out' });
        await preferences.announce(tx, [preferencesMessage(ws, user('eve'), 'acme', layer, now), preferencesMessage(ws, user('eve'), undefined, none, now)]);
        await preferences.announce(tx, []);
      });
      expect(await announced(ws)).toEqual([
        { kind: 'preferences', workspace_slug: ws.slug, subject: user('eve'), tenant_id: 'acme', preferences: layer },
        { kind: 'preferences', workspace_slug: ws.slug, subject: user('eve'), preferences: none },
      ]);
    });

    it('undoes the writes and the announcements together when the work fails, and answers what the work answers', async () => {
      const ws = newWorkspace();
      const failure = await preferences
        .transaction(async (tx) => {
          await preferences.saveCategory(tx, ws, user('fay'), undefined, 'news', { preference: 'opt_out' });
          await preferences.saveChannels(tx, ws, user('fay'), undefined, restrict('email'));
          await preferences.announce(tx, [preferencesMessage(ws, user('fay'), undefined, none, now)]);
          expect(await preferences.layer(ws, user('fay'), undefined, tx)).toEqual({ categories: { news: { preference: 'opt_out' } }, restricted_channels: ['email'] });
          throw new Error('rolled back');
        })
        .catch((error: unknown) => error);
      expect(failure).toEqual(new Error('rolled back'));
      expect(await preferences.layer(ws, user('fay'), undefined)).toEqual(none);
      expect(await announced(ws)).toEqual([]);
      expect(await preferences.transaction(async () => 'answer')).toBe('answer');
    });
  });
});
