import { AssignerProtocol, PartitionAssigner } from 'kafkajs';

export const COLOCATING_ASSIGNER = 'HeraldColocating';

/** A member of a group as the assigner sees it: its id and the process token from its metadata. */
export interface GroupMember {
  readonly memberId: string;
  readonly processToken: string;
}

/**
 * Partition p of every topic goes to the member at p modulo the group's size, the members
 * ordered by their process's token (then member id). One process's consumers carry the
 * same token in every group, so while the groups have the same processes, partition p
 * of every group's topics lands on one process: the inputs of one key (a run's trigger
 * and its delivery outcome, both keyed by the recipient) reach the replica that last
 * decided that key and still holds its state (StreamProcessor's recentStreams). Kafka's
 * round-robin orders by member id, which the broker makes random per consumer, so each
 * group split the partitions its own way and half of a second replica's outcomes went
 * to the other replica.
 */
export function assignColocated(
  members: readonly GroupMember[],
  partitionsOf: ReadonlyMap<string, readonly number[]>,
): Map<string, Record<string, number[]>> {
  const ordered = [...members].sort((a, b) => compare(a.processToken, b.processToken) || compare(a.memberId, b.memberId));
  const assignment = new Map<string, Record<string, number[]>>(ordered.map((m) => [m.memberId, {}]));
  if (ordered.length === 0) return assignment;
  for (const [topic, partitions] of partitionsOf) {
    for (const partition of [...partitions].sort((a, b) => a - b)) {
      const owner = assignment.get(ordered[partition % ordered.length].memberId) as Record<string, number[]>;
      (owner[topic] ??= []).push(partition);
    }
  }
  return assignment;
}

/**
 * The kafkajs assigner of `assignColocated`, carrying `processToken` in each member's
 * metadata. Listed before kafkajs's round-robin, which a group falls back to while one
 * of its members (an older version during a rolling update) does not offer this one.
 */
export function colocatingAssigner(processToken: string): PartitionAssigner {
  return ({ cluster }) => ({
    name: COLOCATING_ASSIGNER,
    version: 1,
    async assign({ members, topics }) {
      const partitionsOf = new Map(topics.map((topic) => [topic, cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId)]));
      const group = members.map(({ memberId, memberMetadata }) => ({
        memberId,
        processToken: AssignerProtocol.MemberMetadata.decode(memberMetadata)?.userData.toString('utf8') ?? '',
      }));
      return [...assignColocated(group, partitionsOf)].map(([memberId, assignment]) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment, userData: Buffer.alloc(0) }),
      }));
    },
    protocol({ topics }) {
      return {
        name: COLOCATING_ASSIGNER,
        metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.from(processToken, 'utf8') }),
      };
    },
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
