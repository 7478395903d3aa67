import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openIngestDatabase } from '../testing/repository-database';
import { SIGNED_REPLAY_WINDOW_MS, SignedRequestRepository } from './signed-request.repository';

describe.each(databaseTargets())('the signed-request repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let requests: SignedRequestRepository;

  beforeAll(async () => {
    const opened = await openIngestDatabase(target);
    db = opened.db;
    dispose = opened.close;
    requests = new SignedRequestRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** A workspace and a replay key as `sdkSignatureReplayKey` makes them (SHA-256 hex). */
  const request = (): { workspaceId: string; replayKey: string } => ({ workspaceId: randomUUID(), replayKey: createHash('sha256').update(randomUUID()).digest('hex') });
  /** Moves a request's times into the past, as a request that died or a window that passed leaves them. */
  async function age(r: { workspaceId: string; replayKey: string }, times: { claimedAgo?: string; expiresAgo?: string }): Promise<void> {
    await db.query(
      `UPDATE ingest.signed_requests
          SET claimed_at = CASE WHEN $3::interval IS NULL THEN claimed_at ELSE now() - $3::interval END,
              expires_at = CASE WHEN $4::interval IS NULL THEN expires_at ELSE now() - $4::interval END
        WHERE workspace_id = $1 AND replay_key = $2`,
      [r.workspaceId, r.replayKey, times.claimedAgo ?? null, times.expiresAgo ?? null],
    );
  }
  async function stored(r: { workspaceId: string; replayKey: string }): Promise<Array<{ state: string; status: number | null; body: string | null; window_ms: number }>> {
    return db.query(
      `SELECT state, status, body, round(extract(epoch FROM expires_at - claimed_at) * 1000)::int AS window_ms
         FROM ingest.signed_requests WHERE workspace_id = $1 AND replay_key = $2`,
      [r.workspaceId, r.replayKey],
    );
  }

  it("inserts a pending claim for the replay window, once: a replay finds it taken, another workspace's same key does not", async () => {
    const r = request();
    expect(await requests.insertPending(r.workspaceId, r.replayKey)).toBe(true);
    expect(await stored(r)).toEqual([{ state: 'pending', status: null, body: null, window_ms: SIGNED_REPLAY_WINDOW_MS }]);
    expect(await requests.insertPending(r.workspaceId, r.replayKey)).toBe(false);
    expect(await requests.insertPending(randomUUID(), r.replayKey)).toBe(true);
  });

  it('reads a pending claim with its expiry and lease judged by the database clock; nothing for an absent one', async () => {
    const r = request();
    expect(await requests.read(r.workspaceId, r.replayKey)).toBeUndefined();
    await requests.insertPending(r.workspaceId, r.replayKey);
    const fresh = await requests.read(r.workspaceId, r.replayKey);
    expect(fresh).toEqual({ state: 'pending', expired: false, leaseOver: false, claimedAt: expect.any(String) });
    expect(fresh?.claimedAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/);
    expect(await requests.read(randomUUID(), r.replayKey)).toBeUndefined();

    await age(r, { claimedAgo: '6 seconds' });
    expect(await requests.read(r.workspaceId, r.replayKey)).toMatchObject({ state: 'pending', expired: false, leaseOver: true });
    await age(r, { expiresAgo: '0 seconds' });
    expect(await requests.read(r.workspaceId, r.replayKey)).toMatchObject({ expired: true });
  });

  it('records the answer and reads it back byte for byte: the status, and the body as the JSON it was', async () => {
    const r = request();
    await requests.insertPending(r.workspaceId, r.replayKey);
    const body = { records: [{ status_code: 202, message_id: randomUUID() }, { status_code: 404, error: { message: 'ü' } }], z: 1, a: null };
    await requests.answer(r.workspaceId, r.replayKey, { status: 207, body });
    expect(await stored(r)).toEqual([expect.objectContaining({ state: 'answered', status: 207, body: JSON.stringify(body) })]);
    const read = await requests.read(r.workspaceId, r.replayKey);
    expect(read).toEqual({ state: 'answered', answer: { status: 207, body }, expired: false, leaseOver: false, claimedAt: expect.any(String) });
    expect(read?.state === 'answered' && JSON.stringify(read.answer.body)).toBe(JSON.stringify(body));
  });

  it('reads an answered row without a status or body as 202 with a null body', async () => {
    const r = request();
    await db.query(
      `INSERT INTO ingest.signed_requests (workspace_id, replay_key, state, claimed_at, expires_at) VALUES ($1, $2, 'answered', now(), now() + interval '1 minute')`,
      [r.workspaceId, r.replayKey],
    );
    expect(await requests.read(r.workspaceId, r.replayKey)).toMatchObject({ state: 'answered', answer: { status: 202, body: null } });
  });

  it('deletes a claim past its window only', async () => {
    const r = request();
    await requests.insertPending(r.workspaceId, r.replayKey);
    await requests.deleteExpired(r.workspaceId, r.replayKey);
    expect(await stored(r)).toHaveLength(1);
    await age(r, { expiresAgo: '1 second' });
    await requests.deleteExpired(r.workspaceId, r.replayKey);
    expect(await stored(r)).toEqual([]);
    expect(await requests.insertPending(r.workspaceId, r.replayKey)).toBe(true);
  });

  it('takes over a pending claim after its lease only as it was read: a second taker, or an answered claim, gets false', async () => {
    const r = request();
    await requests.insertPending(r.workspaceId, r.replayKey);
    await age(r, { claimedAgo: '6 seconds' });
    const abandoned = await requests.read(r.workspaceId, r.replayKey);
    expect(abandoned).toMatchObject({ state: 'pending', leaseOver: true });

    expect(await requests.takeOver(r.workspaceId, r.replayKey, abandoned!.claimedAt)).toBe(true);
    expect(await requests.read(r.workspaceId, r.replayKey)).toMatchObject({ state: 'pending', leaseOver: false });
    expect(await requests.takeOver(r.workspaceId, r.replayKey, abandoned!.claimedAt)).toBe(false);

    await age(r, { claimedAgo: '6 seconds' });
    const before = await requests.read(r.workspaceId, r.replayKey);
    await requests.answer(r.workspaceId, r.replayKey, { status: 202, body: { message: 'OK' } });
    expect(await requests.takeOver(r.workspaceId, r.replayKey, before!.claimedAt)).toBe(false);
    expect(await requests.read(r.workspaceId, r.replayKey)).toMatchObject({ state: 'answered', answer: { status: 202, body: { message: 'OK' } } });
  });

  it('releases a pending claim, so that a replay is judged afresh; an answered one stays', async () => {
    const r = request();
    await requests.insertPending(r.workspaceId, r.replayKey);
    await requests.release(randomUUID(), r.replayKey);
    expect(await stored(r)).toHaveLength(1);
    await requests.release(r.workspaceId, r.replayKey);
    expect(await stored(r)).toEqual([]);

    expect(await requests.insertPending(r.workspaceId, r.replayKey)).toBe(true);
    await requests.answer(r.workspaceId, r.replayKey, { status: 404, body: { message: 'workflow not found' } });
    await requests.release(r.workspaceId, r.replayKey);
    expect(await requests.read(r.workspaceId, r.replayKey)).toMatchObject({ state: 'answered', answer: { status: 404 } });
  });

  it('prunes the answers past their window, and no other', async () => {
    const [expired, live] = [request(), request()];
    await requests.insertPending(expired.workspaceId, expired.replayKey);
    await requests.insertPending(live.workspaceId, live.replayKey);
    await age(expired, { expiresAgo: '1 second' });
    await requests.pruneExpired();
    expect(await stored(expired)).toEqual([]);
    expect(await stored(live)).toHaveLength(1);
  });
});
