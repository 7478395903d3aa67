import { Channel } from '@herald/contracts';
import { PreferenceDecision, PreferencePolicy, PreferenceQuestion } from '../ports';

/**
 * A test-only PreferencePolicy over a made-up snapshot shape
 * `{opted_out_categories?: string[], opted_out_channels?: Channel[]}`; the real policy
 * and snapshot come with issue 7 (libs/audience).
 */
export const simplePreferencePolicy: PreferencePolicy = {
  evaluate: ({ snapshot, category, channel }: PreferenceQuestion): PreferenceDecision => {
    const categories = (snapshot.opted_out_categories ?? []) as readonly string[];
    const channels = (snapshot.opted_out_channels ?? []) as readonly Channel[];
    if (categories.includes(category)) return { allowed: false, reason: `opted out of category ${category}` };
    if (channels.includes(channel)) return { allowed: false, reason: `opted out of ${channel}` };
    return { allowed: true, reason: 'no opt-out' };
  },
};
