import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Subject, type Observable } from 'rxjs';
import { DroverKeys, RedisConnections, ResilientSubscriber } from '@drover/redis';

/** What changed, for consoles: a run, a routine, a queue or a bulk operation. */
export type ApiEventKind = 'run' | 'routine' | 'queue' | 'operation';

/** One change as the cluster-wide stream (`GET /events`) carries it. */
export interface ApiEvent {
  kind: ApiEventKind;
  /** E.g. `status`, `progress`, `changed`, `paused`, `removed`. */
  action: string;
  /** The run id, routine name, queue name or operation id. */
  id: string;
  /** When (cluster clock), ISO 8601 UTC like every instant the API shows. */
  at: string;
  data?: Record<string, unknown>;
}

/**
 * The api's event bus: what one api replica publishes (operation progress, changes it made)
 * reaches the event streams of every replica through one Redis channel. Publishers must not
 * depend on delivery: events nudge consoles, the API's reads are the truth.
 */
@Injectable()
export class ApiEvents implements OnApplicationShutdown {
  private readonly logger = new Logger('ApiEvents');
  private readonly subject = new Subject<ApiEvent>();
  private subscriber?: ResilientSubscriber;
  private listening?: Promise<void>;

  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
  ) {}

  private get channel(): string {
    return this.keys.apiEvents();
  }

  /** Publishes to every replica (this one included, through Redis). Never throws. */
  async publish(event: ApiEvent): Promise<void> {
    try {
      await this.connections.command.publish(this.channel, JSON.stringify(event));
    } catch (err) {
      this.logger.warn(`could not publish an event: ${(err as Error).message}`);
    }
  }

  /** Local listeners (SSE streams, other sources that feed the stream) may also push here. */
  emitLocal(event: ApiEvent): void {
    this.subject.next(event);
  }

  /** Every event from now on; subscribes to the channel on first use. */
  async stream(): Promise<Observable<ApiEvent>> {
    this.listening ??= this.listen();
    await this.listening;
    return this.subject.asObservable();
  }

  private async listen(): Promise<void> {
    // No resync after a reconnect: the events are nudges, and the API's reads are the truth.
    this.subscriber = await ResilientSubscriber.start({
      open: () => this.connections.open('command', 'api-events'),
      channels: [this.channel],
      onMessage: (_ch, raw) => {
        try {
          this.subject.next(JSON.parse(raw) as ApiEvent);
        } catch {
          /* not ours */
        }
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.subject.complete();
    await this.subscriber?.close();
  }
}
