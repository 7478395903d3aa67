import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@herald/runtime';

type OutcomeLabels = 'channel' | 'vendor' | 'outcome';
type CallLabels = 'channel' | 'vendor' | 'result';

/**
 * Delivery outcomes and vendor calls, for alerting on a failing vendor and for seeing
 * where dispatch time goes. `vendor` is `<channel>/<vendor>` as outcomes name it (the
 * vendor that sent, or the first of the route for a failure; `none` without a route).
 */
@Injectable()
export class DispatchMetrics {
  private readonly deliveries: Counter<OutcomeLabels>;
  private readonly calls: Histogram<CallLabels>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.deliveries =
      (registry.getSingleMetric('herald_deliveries_total') as Counter<OutcomeLabels> | undefined) ??
      new Counter({
        name: 'herald_deliveries_total',
        help: 'Delivery outcomes recorded, by channel, vendor and outcome (sent_by_vendor, delivered, delivery_failure, retrying)',
        labelNames: ['channel', 'vendor', 'outcome'],
        registers: [registry],
      });
    this.calls =
      (registry.getSingleMetric('herald_vendor_call_duration_seconds') as Histogram<CallLabels> | undefined) ??
      new Histogram({
        name: 'herald_vendor_call_duration_seconds',
        help: 'Vendor calls by channel, vendor and result (ok, retryable, permanent)',
        labelNames: ['channel', 'vendor', 'result'],
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers: [registry],
      });
  }

  outcome(channel: string, vendor: string | undefined, outcome: string): void {
    this.deliveries.inc({ channel, vendor: vendor ?? 'none', outcome });
  }

  vendorCall(channel: string, vendor: string, result: 'ok' | 'retryable' | 'permanent', seconds: number): void {
    this.calls.observe({ channel, vendor, result }, seconds);
  }
}
