import { QueryRunner } from 'typeorm';

/** Runs `work` in a transaction on this runner's connection; rolls back when it throws. */
export async function inTransaction<T>(runner: QueryRunner, work: () => Promise<T>): Promise<T> {
  await runner.startTransaction();
  try {
    const result = await work();
    await runner.commitTransaction();
    return result;
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  }
}
