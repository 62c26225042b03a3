/**
 * A list of webhook formats, and what the rest of the hub asks of it: the
 * names, a format by its name, whether it takes a target, and the request
 * one attempt makes.
 */
import type { AlertMessage } from "../model.ts";
import { formatRequest, type OutgoingRequest } from "../transport.ts";
import type { FormatSpec, Rendered } from "./format.ts";

/** What one attempt of a delivery brings besides its message and target. */
export interface Sending {
  readonly messageId: string;
  readonly timestampSeconds: number;
  /** Opens the webhook's signing secret (null when it cannot be): asked only by formats that sign. */
  readonly secret: () => string | null;
}

export interface Prepared {
  readonly url: string;
  readonly request: OutgoingRequest;
}

type Names<Formats extends readonly FormatSpec[]> = { readonly [K in keyof Formats]: Formats[K]["name"] };

export class FormatRegistry<const Formats extends readonly FormatSpec[]> {
  /** The formats' names, in the order of the list. */
  readonly names: Names<Formats>;
  private readonly byName: ReadonlyMap<string, Formats[number]>;

  constructor(readonly formats: Formats) {
    this.names = formats.map((format) => format.name) as Names<Formats>;
    this.byName = new Map(formats.map((format) => [format.name, format]));
    if (this.byName.size !== formats.length) throw new Error(`Two webhook formats share a name: ${this.names.join(", ")}.`);
  }

  get(name: string): Formats[number] | undefined {
    return this.byName.get(name);
  }

  /** Why a format cannot send to a target (any http or https URL the private-address guard let through), or null. */
  targetProblem(name: string, target: string): string | null {
    const format = this.byName.get(name);
    return format === undefined ? `${name} is not a webhook format` : format.target.problem(new URL(target));
  }

  /** The request one attempt of a delivery makes, or why none can be made. */
  prepare(name: string, target: string, payload: string, sending: Sending): Prepared | string {
    const format = this.byName.get(name);
    if (format === undefined) return `this hub has no webhook format named ${name}; choose another format`;
    const stored = { payload, message: JSON.parse(payload) as AlertMessage };
    let rendered: Rendered;
    if (format.signed) {
      const secret = sending.secret();
      if (secret === null) return "the signing secret cannot be read with this hub's key (was hub.key replaced?); rotate the webhook's secret";
      rendered = format.render(stored, { messageId: sending.messageId, timestampSeconds: sending.timestampSeconds, secret });
    } else {
      rendered = format.render(stored);
    }
    return formatRequest(format, target, sending.messageId, rendered);
  }
}
