/**
 * The kafkajs that Herald's patches of its internals (`request-queue-fix.ts`,
 * `fetch-linger.ts`, `idle-fetch.ts`, `deferred-commit.ts`) were written against. Each refuses any other
 * version, so an upgrade is checked against every patch instead of silently patched.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const installedKafkajsVersion: string = require('kafkajs/package.json').version;

export const PATCHED_KAFKAJS_VERSION = '2.2.4';

/** Throws unless the installed kafkajs is the patched one; `patch` names the file, `advice` what to check. */
export function assertPatchedKafkajs(patch: string, advice = 'check it against the new version, then update or remove it'): void {
  if (installedKafkajsVersion !== PATCHED_KAFKAJS_VERSION) {
    throw new Error(`kafkajs ${installedKafkajsVersion} is installed; libs/platform/bus/src/kafka/${patch} patches ${PATCHED_KAFKAJS_VERSION}: ${advice}`);
  }
}
