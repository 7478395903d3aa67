import { randomBytes, randomUUID } from 'node:crypto';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase } from '../testing/repository-database';
import { MAX_ENDPOINTS_PER_WORKSPACE, WebhookEndpointFields, WebhookEndpointRepository } from './webhook-endpoint.repository';

const fields: WebhookEndpointFields = { url: 'https://hooks.example.com/a', description: '', eventTypes: ['delivered'], workflows: ['welcome'], channels: [], categories: [], enabled: true };

describe.each(databaseTargets())('the webhook endpoint repository ($kind)', (target) => {
  let database: Awaited<ReturnType<typeof openManagementDatabase>>;
  let endpoints: WebhookEndpointRepository;

  beforeAll(async () => {
    database = await openManagementDatabase(target);
    endpoints = new WebhookEndpointRepository(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('creates, finds, lists, updates and removes endpoints of one workspace only', async () => {
    const workspace = await database.newWorkspace();
    const other = await database.newWorkspace();
    const sealed = randomBytes(40);
    const created = await endpoints.create(workspace, randomUUID(), fields, sealed, 'whsec_abcd****');
    expect(created).toMatchObject({ ...fields, workspaceId: workspace.id, secretSealed: sealed });
    expect(created?.createdAt).toBeInstanceOf(Date);
    const id = created!.id;
    expect(await endpoints.find(workspace, id)).toMatchObject({ id, eventTypes: ['delivered'], workflows: ['welcome'], channels: [] });
    expect(await endpoints.find(other, id)).toBeNull();
    expect((await endpoints.findByIds([id, randomUUID()])).map((e) => e.id)).toEqual([id]);
    expect(await endpoints.findByIds([])).toEqual([]);

    const second = await endpoints.create(workspace, randomUUID(), { ...fields, url: 'https://hooks.example.com/b' }, sealed, 'x');
    expect(await endpoints.list(workspace, { limit: 1, offset: 1 })).toEqual({ count: 2, endpoints: [expect.objectContaining({ id: second!.id })] });
    expect((await endpoints.list(other, { limit: 10, offset: 0 })).count).toBe(0);

    expect(await endpoints.update(workspace, id, { enabled: false, channels: ['email', 'sms'] })).toMatchObject({ enabled: false, channels: ['email', 'sms'], url: fields.url });
    expect(await endpoints.update(other, id, { enabled: true })).toBeNull();
    expect(await endpoints.remove(other, id)).toBe(false);
    expect(await endpoints.remove(workspace, id)).toBe(true);
    expect(await endpoints.find(workspace, id)).toBeNull();
  });

  it(`refuses a workspace's endpoint past ${MAX_ENDPOINTS_PER_WORKSPACE}, also when created at once`, async () => {
    const workspace = await database.newWorkspace();
    const results = await Promise.all(
      Array.from({ length: MAX_ENDPOINTS_PER_WORKSPACE + 3 }, () => endpoints.create(workspace, randomUUID(), fields, randomBytes(8), 'x')),
    );
    expect(results.filter((r) => r === null)).toHaveLength(3);
    expect((await endpoints.list(workspace, { limit: 100, offset: 0 })).count).toBe(MAX_ENDPOINTS_PER_WORKSPACE);
  });
});
