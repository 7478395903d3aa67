import { assignColocated } from './colocating-assigner';

describe('assignColocated', () => {
  const topics = new Map([
    ['chunks', [0, 1, 2, 3, 4, 5]],
    ['outcomes', [5, 4, 3, 2, 1, 0]],
  ]);

  it("gives partition p of every topic to one member, so two groups of the same processes put one key's partitions on one process", () => {
    // Two groups of the same two processes: the broker's member ids order them differently.
    const triggers = assignColocated(
      [
        { memberId: 'herald-a1', processToken: 'process-B' },
        { memberId: 'herald-z9', processToken: 'process-A' },
      ],
      new Map([['chunks', [0, 1, 2, 3, 4, 5]]]),
    );
    const outcomes = assignColocated(
      [
        { memberId: 'herald-z1', processToken: 'process-B' },
        { memberId: 'herald-a9', processToken: 'process-A' },
      ],
      new Map([['outcomes', [0, 1, 2, 3, 4, 5]]]),
    );
    expect(triggers.get('herald-z9')).toEqual({ chunks: [0, 2, 4] });
    expect(outcomes.get('herald-a9')).toEqual({ outcomes: [0, 2, 4] });
    expect(triggers.get('herald-a1')).toEqual({ chunks: [1, 3, 5] });
    expect(outcomes.get('herald-z1')).toEqual({ outcomes: [1, 3, 5] });
  });

  it('assigns every partition of every topic exactly once, members of one process told apart by member id', () => {
    const members = [
      { memberId: 'm3', processToken: 't' },
      { memberId: 'm1', processToken: 't' },
      { memberId: 'm2', processToken: 'u' },
      { memberId: 'm4', processToken: 'v' },
    ];
    const assignment = assignColocated(members, topics);
    expect([...assignment.keys()]).toEqual(['m1', 'm3', 'm2', 'm4']);
    expect(assignment.get('m1')).toEqual({ chunks: [0, 4], outcomes: [0, 4] });
    expect(assignment.get('m4')).toEqual({ chunks: [3], outcomes: [3] });
    for (const [topic, partitions] of topics) {
      const owned = [...assignment.values()].flatMap((a) => a[topic] ?? []).sort();
      expect(owned).toEqual([...partitions].sort());
    }
  });

  it('leaves a member without partitions when the group outnumbers them, and assigns nothing to no members', () => {
    const assignment = assignColocated(
      [
        { memberId: 'a', processToken: '1' },
        { memberId: 'b', processToken: '2' },
        { memberId: 'c', processToken: '3' },
      ],
      new Map([['t', [0, 1]]]),
    );
    expect(Object.fromEntries(assignment)).toEqual({ a: { t: [0] }, b: { t: [1] }, c: {} });
    expect(assignColocated([], topics).size).toBe(0);
  });
});
