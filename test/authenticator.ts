/**
 * A software WebAuthn authenticator for tests: a real P-256 key pair that
 * produces genuine "none" attestations and signed assertions, so the hub's
 * passkey flows are verified end to end by @simplewebauthn/server. Like
 * navigator.credentials, create() and get() take `{ publicKey }`, which is
 * what the hub's registration and challenge replies are.
 */

type CborValue = number | string | Uint8Array | CborValue[] | Map<number | string, CborValue>;

function head(major: number, length: number): number[] {
  if (length < 24) return [(major << 5) | length];
  if (length < 256) return [(major << 5) | 24, length];
  if (length < 65536) return [(major << 5) | 25, length >> 8, length & 0xff];
  return [(major << 5) | 26, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
}

export function cbor(value: CborValue): Uint8Array {
  const out: number[] = [];
  const write = (v: CborValue): void => {
    if (typeof v === "number") {
      out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    } else if (typeof v === "string") {
      const bytes = new TextEncoder().encode(v);
      out.push(...head(3, bytes.length), ...bytes);
    } else if (v instanceof Uint8Array) {
      out.push(...head(2, v.length), ...v);
    } else if (Array.isArray(v)) {
      out.push(...head(4, v.length));
      v.forEach(write);
    } else {
      out.push(...head(5, v.size));
      for (const [k, item] of v) {
        write(k);
        write(item);
      }
    }
  };
  write(value);
  return new Uint8Array(out);
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");
const sha256 = async (data: Uint8Array): Promise<Uint8Array> => new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(data)));
const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};
const u32 = (n: number): Uint8Array => new Uint8Array([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);

/** IEEE P1363 (r || s) to the DER SEQUENCE WebAuthn uses. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array): number[] => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = [...bytes.slice(i)];
    if ((trimmed[0] ?? 0) & 0x80) trimmed.unshift(0);
    return [0x02, trimmed.length, ...trimmed];
  };
  const body = [...integer(raw.slice(0, 32)), ...integer(raw.slice(32))];
  return new Uint8Array([0x30, body.length, ...body]);
}

export class SoftwareAuthenticator {
  private keys: CryptoKeyPair | null = null;
  private credentialId = crypto.getRandomValues(new Uint8Array(32));
  private counter = 0;
  /** Whether the credential is of a kind that syncs (the backup-eligible flag, 0x08): fixed at creation. */
  readonly backupEligible: boolean;
  /** Whether it is synced now (the backed-up flag, 0x10); a password manager may sync it later, so it can change. */
  backedUp: boolean;

  constructor(
    private readonly origin: string,
    backup: { eligible: boolean; backedUp: boolean } = { eligible: false, backedUp: false },
  ) {
    this.backupEligible = backup.eligible;
    this.backedUp = backup.backedUp;
  }

  /** The authenticator data's flags: user present (0x01), user verified (0x04), and the backup flags. */
  private flags(base: number): Uint8Array {
    return new Uint8Array([base | (this.backupEligible ? 0x08 : 0) | (this.backedUp ? 0x10 : 0)]);
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** A new key pair, and its public key in COSE form, as a relying party stores it (the field's hub fixture stores it without a registration). */
  async newCoseKey(): Promise<Uint8Array> {
    this.keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", this.keys.publicKey));
    return cbor(
      new Map<number, CborValue>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, raw.slice(1, 33)],
        [-3, raw.slice(33, 65)],
      ]),
    );
  }

  async create({ publicKey: options }: { publicKey: { challenge: string; rp: { id?: string } } }): Promise<Record<string, unknown>> {
    const cose = await this.newCoseKey();
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const authData = concat(
      await sha256(new TextEncoder().encode(rpId)),
      this.flags(0x45),
      u32(this.counter),
      new Uint8Array(16),
      new Uint8Array([0, this.credentialId.length]),
      this.credentialId,
      cose,
    );
    const attestationObject = cbor(new Map<string, CborValue>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]));
    const clientDataJSON = new TextEncoder().encode(JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin: this.origin, crossOrigin: false }));
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ["internal"] },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }

  async get({ publicKey: options }: { publicKey: { challenge: string; rpId?: string } }, overrides: { origin?: string } = {}): Promise<Record<string, unknown>> {
    if (!this.keys) throw new Error("create a credential first");
    this.counter++;
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const authData = concat(await sha256(new TextEncoder().encode(rpId)), this.flags(0x05), u32(this.counter));
    const clientDataJSON = new TextEncoder().encode(JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false }));
    const signed = concat(authData, await sha256(clientDataJSON));
    const signature = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, this.keys.privateKey, signed));
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(derSignature(signature)) },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }
}
