/** Reading one cookie straight from the header, so routes that do not need cookies never pay for parsing them. */

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}

export interface CookieAttributes {
  readonly httpOnly: boolean;
  readonly sameSite: "lax" | "strict";
  readonly path: string;
  readonly secure: boolean;
  readonly maxAge: number;
}

export function serializeCookie(name: string, value: string, attributes: CookieAttributes): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Max-Age=${attributes.maxAge}`, `Path=${attributes.path}`];
  if (attributes.httpOnly) parts.push("HttpOnly");
  if (attributes.secure) parts.push("Secure");
  parts.push(`SameSite=${attributes.sameSite === "lax" ? "Lax" : "Strict"}`);
  return parts.join("; ");
}
