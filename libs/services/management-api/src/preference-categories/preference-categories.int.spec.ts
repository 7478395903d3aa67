import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

const document = {
  root_categories: [
    {
      root_category: 'transactional',
      sections: [
        {
          name: 'Task Updates',
          categories: [
            {
              category: 'tagged-to-me',
              name: 'Tagged to Me',
              default_preference: 'opt_in',
              digest_schedule_options: {
                options: [{ id: 'daily', label: 'Daily', frequency: 'daily', interval: 1, time: { edit_policy: 'editable', default_value: '09:00' }, is_default: true }],
              },
            },
          ],
        },
      ],
    },
    { root_category: 'promotional', sections: [{ name: 'News', categories: [{ category: 'newsletter', name: 'Newsletter', default_preference: 'opt_out' }] }] },
  ],
};

describe.each(databaseTargets())('management API: preference categories ($kind)', (target) => {
  let t: ManagementTestApp;
  const path = 'v1/staging/preference_category/';

  beforeAll(async () => {
    t = await startManagementTestApp(target);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('starts with the default categories live (one per root, named like it), announced once', async () => {
    expect(await t.call('GET', `${path}?mode=live`)).toMatchObject({
      status: 200,
      body: {
        root_categories: [
          { root_category: 'system', sections: [{ categories: [{ category: 'system', default_preference: 'cant_unsubscribe' }] }] },
          { root_category: 'transactional', sections: [{ categories: [{ category: 'transactional', default_preference: 'opt_in' }] }] },
          { root_category: 'promotional', sections: [{ categories: [{ category: 'promotional', default_preference: 'opt_in' }] }] },
        ],
        version_no: 1,
        status: 'active',
        commit_message: 'default categories',
        validation_result: { is_valid: true, errors: [] },
      },
    });
    await expectEventually(() => expect(t.definitions.filter((d) => d.kind === 'category')).toHaveLength(1));
    expect(t.definitions.find((d) => d.kind === 'category')).toMatchObject({ change: 'committed', id: 'categories', version: 1, workspace_slug: 'staging' });
  });

  it('takes an empty draft as valid', async () => {
    expect((await t.call('POST', path, {})).body).toMatchObject({ status: 'draft', version_no: 2, validation_result: { is_valid: true, errors: [] } });
  });

  it('saves an invalid draft with its validation result, and refuses to commit it', async () => {
    const broken = { root_categories: [{ root_category: 'transactional', sections: [{ name: 'x', categories: [{ category: 'Bad', name: 'n', default_preference: 'maybe' }] }] }] };
    const saved = await t.call('POST', path, broken);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      status: 'draft',
      validation_result: {
        is_valid: false,
        errors: [
          expect.stringContaining('root_categories[0].sections[0].categories[0].category: must match'),
          expect.stringContaining('root_categories[0].sections[0].categories[0].default_preference: must be one of'),
        ],
      },
    });
    const commit = await t.call('PATCH', `${path}commit/?commit_message=try`);
    expect(commit.status).toBe(400);
    expect((commit.body as { detail: string }).detail).toContain('root_categories[0].sections[0].categories[0].category');
    expect((await t.call('GET', `${path}?mode=live`)).body).toMatchObject({ version_no: 1, commit_message: 'default categories' });
  });

  it('replaces the draft, commits it, and announces the live document once', async () => {
    const saved = await t.call('POST', path, document);
    expect(saved.body).toMatchObject({ status: 'draft', version_no: 2, validation_result: { is_valid: true } });

    const committed = await t.call('PATCH', `${path}commit/?commit_message=first%20categories`);
    expect(committed).toMatchObject({ status: 200, body: { status: 'active', version_no: 2, commit_message: 'first categories' } });
    const live = await t.call('GET', `${path}?mode=live`);
    expect(live.body).toMatchObject({
      status: 'active',
      root_categories: [
        { root_category: 'system', sections: [] },
        { root_category: 'transactional', sections: [{ categories: [{ category: 'tagged-to-me' }] }] },
        { root_category: 'promotional', sections: [{ categories: [{ category: 'newsletter' }] }] },
      ],
    });
    await expectEventually(() => expect(t.definitions.filter((d) => d.kind === 'category').map((d) => d.version)).toEqual([1, 2]));
  });

  it('commits in one call with commit=true, keeping the previous version as history', async () => {
    const next = structuredClone(document);
    next.root_categories[1].sections[0].categories[0].name = 'Weekly newsletter';
    const response = await t.call('POST', `${path}?commit=true&commit_message=rename`, next);
    expect(response.body).toMatchObject({ status: 'active', version_no: 3, commit_message: 'rename' });
    const versions = await t.sql<{ version_no: number; status: string }>(
      `SELECT version_no, status FROM management.preference_category_versions ORDER BY version_no`,
    );
    expect(versions).toEqual([
      { version_no: 1, status: 'archived' },
      { version_no: 2, status: 'archived' },
      { version_no: 3, status: 'active' },
    ]);
    await expectEventually(() => expect(t.definitions.filter((d) => d.kind === 'category').map((d) => d.version)).toEqual([1, 2, 3]));
  });

  it('requires a commit message to commit (in the query or the body), and a draft to commit', async () => {
    expect((await t.call('POST', `${path}?commit=true`, document)).status).toBe(400);
    expect((await t.call('PATCH', `${path}commit/`)).status).toBe(400);
    expect(await t.call('PATCH', `${path}commit/`, { commit_message: 7 })).toMatchObject({ status: 400, body: { detail: 'commit_message: must be a string' } });
    await t.call('PATCH', `${path}commit/?commit_message=flush`);
    expect(await t.call('PATCH', `${path}commit/?commit_message=again`)).toMatchObject({ status: 409, body: { error_code: 'conflict' } });
  });

  it('answers 400 for an unknown mode, 404 for an unknown workspace, 401 for a bad token', async () => {
    expect((await t.call('GET', `${path}?mode=preview`)).status).toBe(400);
    expect((await t.call('GET', 'v1/nowhere/preference_category/')).status).toBe(404);
    expect((await t.call('GET', path, undefined, 'nope')).status).toBe(401);
  });

  it("keeps accounts apart: the other account's staging has none of these categories", async () => {
    expect((await t.call('GET', `${path}?mode=live`, undefined, t.otherToken)).status).toBe(404);
    expect((await t.call('GET', path, undefined, t.otherToken)).body).toMatchObject({ version_no: 0 });
  });
});
