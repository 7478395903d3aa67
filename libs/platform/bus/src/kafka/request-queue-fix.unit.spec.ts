import { applyRequestQueueFix } from './request-queue-fix';

// kafkajs's own RequestQueue, with the fix applied, driven as a connection drives it.
interface Queue {
  throttleCheckTimeoutId: unknown;
  pending: unknown[];
  push(request: { entry: Entry; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}
interface Entry {
  correlationId: number;
  apiKey: number;
  apiName: string;
  apiVersion: number;
  resolve: () => void;
  reject: () => void;
}

applyRequestQueueFix();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue: new (options: Record<string, unknown>) => Queue = require('kafkajs/src/network/requestQueue');

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function queue(maxInFlightRequests: number): Queue {
  return new RequestQueue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'spec', broker: 'localhost:9092', logger: silent });
}

function request(correlationId: number, sent: number[]): { entry: Entry; expectResponse: boolean; sendRequest: () => void } {
  return {
    entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: () => undefined, reject: () => undefined },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

describe('kafkajs RequestQueue with the idle-timer fix', () => {
  afterEach(() => jest.useRealTimers());

  it('leaves no timer running once nothing is pending', () => {
    const q = queue(5);
    const sent: number[] = [];
    q.push(request(1, sent));
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1]);
    // kafkajs 2.2.4 leaves a check scheduled here, which reschedules itself every 1 ms.
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('sends a request held by a client-side throttle once the throttle ends', () => {
    jest.useFakeTimers();
    const q = queue(5);
    const sent: number[] = [];
    q.maybeThrottle(50);
    q.push(request(1, sent));
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(49);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(11);
    expect(sent).toEqual([1]);
    expect(q.pending).toEqual([]);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(q.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
    q.destroy();
  });

  it('sends a request held by the in-flight limit when an earlier one is answered', () => {
    jest.useFakeTimers();
    const q = queue(1);
    const sent: number[] = [];
    q.push(request(1, sent));
    q.push(request(2, sent));
    expect(sent).toEqual([1]);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1, 2]);
    q.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
    // The check scheduled while request 2 waited runs once, finds nothing and ends.
    jest.advanceTimersByTime(10);
    expect(q.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
    q.destroy();
  });
});
