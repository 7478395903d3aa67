import { AsyncLocalStorage } from 'node:async_hooks';
import { DefinitionChanged } from '@herald/contracts';

/**
 * The definition changes a management request announced (written to the outbox), so
 * CommitVisibility can wait for them after the request's transaction committed. Kept
 * per request in async-local storage: the stores stay as they are, and whatever
 * announces outside a request (bootstrap) records nothing.
 */
const announcedInRequest = new AsyncLocalStorage<DefinitionChanged[]>();

export function recordAnnounced(change: DefinitionChanged): void {
  announcedInRequest.getStore()?.push(change);
}

/** Runs `work` and gives back what it announced, in order. */
export async function collectAnnounced<T>(work: () => Promise<T>): Promise<{ result: T; announced: DefinitionChanged[] }> {
  const announced: DefinitionChanged[] = [];
  const result = await announcedInRequest.run(announced, work);
  return { result, announced };
}
