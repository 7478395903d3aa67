import { WebpushEngagement } from '@herald/contracts';
import { engagementOutcome } from './webpush-engagement.consumer';
import { MessageStanding } from '../http/message-log.repository';

describe('a service worker report as the outcome of its web push message', () => {
  const message = (status: string): MessageStanding => ({ deliveryId: 'd-1', runId: 'r-1', messageId: 'm-1', channel: 'webpush', status });
  const report = (status: WebpushEngagement['status'], action?: string): WebpushEngagement => ({ workspace_slug: 'staging', delivery_id: 'd-1', status, at: '2026-01-01T00:00:00.000Z', ...(action ? { action } : {}) });

  it('records delivered after sent, and a click after either, with the button clicked', () => {
    expect(engagementOutcome(message('sent_by_vendor'), report('delivered'))).toEqual({
      delivery_id: 'd-1',
      run_id: 'r-1',
      message_id: 'm-1',
      workspace_slug: 'staging',
      channel: 'webpush',
      status: 'delivered',
      vendor: 'webpush/vapid',
      at: '2026-01-01T00:00:00.000Z',
    });
    expect(engagementOutcome(message('delivered'), report('clicked', 'accept'))).toMatchObject({ status: 'clicked', vendor_event: 'notificationclick:accept' });
    expect(engagementOutcome(message('sent_by_vendor'), report('clicked'))).toMatchObject({ status: 'clicked' });
  });

  it('never moves a message back: a late delivered after a click, or a repeat, changes nothing', () => {
    expect(engagementOutcome(message('clicked'), report('delivered'))).toBeNull();
    expect(engagementOutcome(message('delivered'), report('delivered'))).toBeNull();
    expect(engagementOutcome(message('clicked'), report('clicked'))).toBeNull();
  });
});
