/** Push counters for /metrics (SPEC §23): sends by result and how long each took. */
import { Histogram } from "../metrics.ts";

export const PUSH_RESULTS = ["delivered", "gone", "retry", "expired", "failed"] as const;
export type PushResult = (typeof PUSH_RESULTS)[number];

export class PushStats {
  private readonly sent = new Map<PushResult, number>(PUSH_RESULTS.map((result) => [result, 0]));
  private readonly seconds = new Histogram();

  count(result: PushResult): void {
    this.sent.set(result, (this.sent.get(result) ?? 0) + 1);
  }

  observeSend(seconds: number): void {
    this.seconds.observe(seconds);
  }

  render(subscriptions: number): string {
    const lines = [
      "# HELP hub_push_subscriptions Push subscriptions the hub keeps.",
      "# TYPE hub_push_subscriptions gauge",
      `hub_push_subscriptions ${subscriptions}`,
      "# HELP hub_push_sent_total Push messages handed to push services, by result (delivered, gone: 404/410 and removed, retry: 429/5xx or no answer, expired: past its TTL, failed: 400/401/403/413).",
      "# TYPE hub_push_sent_total counter",
      ...PUSH_RESULTS.map((result) => `hub_push_sent_total{result="${result}"} ${this.sent.get(result) ?? 0}`),
      ...this.seconds.render("hub_push_send_seconds", "Time for one push service to answer one message."),
    ];
    return `${lines.join("\n")}\n`;
  }
}
