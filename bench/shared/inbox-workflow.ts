import { BenchError } from './bench-kit';

/**
 * Creates and commits, through the management API, an inbox template whose body is
 * `flow {{n}}` and a workflow of one `send_inbox` node sending it, both named `slug`, in
 * the workspace `staging` (the calls of e2e/src/distributed-mode.e2e.spec.ts).
 */
export async function createInboxWorkflow(managementUrl: string, serviceToken: string, slug: string): Promise<void> {
  const call = async (method: string, path: string, body?: unknown): Promise<void> => {
    const response = await fetch(`${managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status >= 300) throw new BenchError(`${method} ${path} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
  };
  await call('POST', `v2/staging/template/${slug}/`, { name: slug, enabled_channels: ['inbox'] });
  await call('POST', `v2/staging/template/${slug}/channel/inbox/variant/default/`, { locale: 'en', content: { body: 'flow {{n}}' } });
  await call('PATCH', `v2/staging/template/${slug}/commit/?commit_message=bench`);
  await call('POST', `v1/staging/workflow/${slug}/?commit=true&commit_message=bench`, {
    name: slug,
    category: 'transactional',
    trigger_type: 'api',
    tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: slug }] },
  });
}
