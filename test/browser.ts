/** A browser for in-process tests: a cookie jar, the CSRF token of its session, and JSON helpers. */
import type { Hub } from "../src/hub.ts";
import { rememberSocketAddress } from "../src/http/client-ip.ts";

export class Browser {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(
    private readonly hub: Hub,
    readonly ip = "203.0.113.10",
  ) {}

  async request(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; csrf?: boolean } = {}): Promise<Response> {
    const headers = new Headers(options.headers);
    if (this.cookies.size > 0) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    if (options.csrf !== false && this.csrf && !["GET", "HEAD"].includes(method) && !headers.has("x-csrf-token")) headers.set("x-csrf-token", this.csrf);
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers.set("content-type", "application/json");
    }
    const request = new Request(`http://localhost${path}`, { method, headers, body });
    rememberSocketAddress(request, this.ip);
    const response = await this.hub.app.handle(request);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";").map((s) => s.trim());
      const eq = (pair ?? "").indexOf("=");
      const name = (pair ?? "").slice(0, eq);
      const value = (pair ?? "").slice(eq + 1);
      const expired = attributes.some((a) => /^max-age=0$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Reads the session body and keeps its CSRF token. */
  async session(): Promise<SessionView> {
    const body = (await (await this.request("GET", "/api/v1/auth/session")).json()) as SessionView;
    this.csrf = body.csrfToken;
    return body;
  }

  async json<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; response: Response }> {
    const response = await this.request(method, path, { body });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, response };
  }

  async login(username: string, password: string): Promise<{ status: number; next?: string; methods?: string[] }> {
    const { status, body } = await this.json<{ next?: string; methods?: string[] }>("POST", "/api/v1/auth/login", { username, password });
    await this.session();
    return { status, ...body };
  }
}

export interface SessionView {
  authenticated: boolean;
  authLevel: "password" | "mfa" | null;
  csrfToken: string | null;
  enableApiKeys: boolean;
  requireAuth: boolean;
  needsSetup: boolean;
  needsMfaPolicy: boolean;
  mfa: { required: boolean; enroll: boolean; methods: string[] };
  user: { id: number; username: string; role: string; totpEnabled: boolean; hasPasskey: boolean; enabled: boolean } | null;
}
