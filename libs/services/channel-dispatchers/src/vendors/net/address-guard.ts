import { LookupAddress, promises as dns } from 'node:dns';
import { Cidr, checkAddress, parseCidrList } from '@herald/outbound-http';

/** Resolves a host name to all its addresses; tests swap it. */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true });

/**
 * The outbound address rule (decisions.md "Outbound HTTP") for the connections the
 * guarded HTTP client does not make: SMTP through nodemailer and APNs over HTTP/2.
 * Callers connect to an address this returned, never to the name again, so a DNS
 * answer that changes between the check and the connect cannot slip through.
 */
export class AddressGuard {
  private readonly allow: readonly Cidr[];

  /** `allow`: HeraldConfig.outboundAllow. Throws InvalidCidrError on a bad range. */
  constructor(
    allow: readonly string[],
    private readonly resolve: Resolve = systemResolve,
  ) {
    this.allow = parseCidrList(allow);
  }

  /** The first allowed address of `host` (an IP literal resolves to itself); BlockedAddressError when there is none. */
  async addressOf(host: string): Promise<string> {
    const resolved = await this.resolve(host);
    if (resolved.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
    const verdicts = resolved.map((entry) => checkAddress(entry.address, this.allow));
    const allowed = verdicts.find((verdict) => verdict.allowed);
    if (!allowed) throw new BlockedAddressError(host, verdicts[0].address, verdicts[0].category);
    return allowed.address;
  }
}

/** The host resolves only to addresses the rule refuses: retried (HERALD_OUTBOUND_ALLOW may be fixed meanwhile). */
export class BlockedAddressError extends Error {
  constructor(host: string, address: string, category: string) {
    super(`${host} resolves to ${address} (${category}), which is not allowed; HERALD_OUTBOUND_ALLOW can allow it`);
    this.name = 'BlockedAddressError';
  }
}
