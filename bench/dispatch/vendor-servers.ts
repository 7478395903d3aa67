// The local vendor servers of the dispatch bench, in a process of their own: a vendor is
// another system, so its CPU must not be charged to Herald (or to the peer) nor share
// their one JS thread. dispatch.bench.ts forks this script and talks to it over IPC:
//
//   child → parent  { kind: 'ready', smtpPort, sendgridUrl, twilioUrl }
//   parent → child  { kind: 'cpu' }    child → parent  { kind: 'cpu', micros }  (its CPU so far)
//   parent → child  { kind: 'close' }  the child closes its servers and exits
//
// Not meant to be run by hand.

import { LocalSmtpServer } from '../../libs/services/channel-dispatchers/src/testing/local-smtp-server';
import { RecordingServer } from '../../libs/services/channel-dispatchers/src/testing/recording-server';

export type VendorServersMessage =
  | { readonly kind: 'ready'; readonly smtpPort: number; readonly sendgridUrl: string; readonly twilioUrl: string }
  | { readonly kind: 'cpu'; readonly micros: number };

export type VendorServersCommand = { readonly kind: 'cpu' } | { readonly kind: 'close' };

async function main(): Promise<void> {
  const send = (message: VendorServersMessage): void => void process.send?.(message);
  const smtp = await LocalSmtpServer.start({ username: 'mailer', password: 'secret' });
  // Keep-alive connections stay open as a vendor's do (a 1 ms timeout made clients reconnect between bursts).
  const sendgrid = await RecordingServer.start({ status: 202, headers: { 'x-message-id': 'sg-bench' } }, { keepAliveTimeoutMs: 5_000 });
  const twilio = await RecordingServer.start({ status: 201, body: { sid: 'SM-bench' } }, { keepAliveTimeoutMs: 5_000 });
  process.on('message', (command: VendorServersCommand) => {
    if (command.kind === 'cpu') {
      const usage = process.cpuUsage();
      send({ kind: 'cpu', micros: usage.user + usage.system });
    } else if (command.kind === 'close') {
      void Promise.all([smtp.close(), sendgrid.close(), twilio.close()]).finally(() => process.exit(0));
    }
  });
  // The parent gone (killed), nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
  send({ kind: 'ready', smtpPort: smtp.port, sendgridUrl: sendgrid.url, twilioUrl: twilio.url });
}

main().catch((error: unknown) => {
  process.stderr.write(`vendor servers failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
