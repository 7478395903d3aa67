import { Inject, Injectable } from '@nestjs/common';
import { HERALD_CONFIG, HeraldConfig } from '@herald/runtime';

/**
 * What the console is told about the installation: `{base_url}` as a browser reaches
 * it. HERALD_CONSOLE_BASE_URL in distributed mode (the notification API is other
 * services, split by path); the embedded launcher gives its own once it listens.
 */
@Injectable()
export class ConsoleSettings {
  private embeddedBaseUrl?: string;

  constructor(@Inject(HERALD_CONFIG) private readonly config: HeraldConfig) {}

  /** Embedded mode: the notification API of this very process. */
  useEmbeddedBaseUrl(baseUrl: string): void {
    this.embeddedBaseUrl = baseUrl;
  }

  get baseUrl(): string | null {
    return this.config.consoleBaseUrl ?? this.embeddedBaseUrl ?? null;
  }
}
