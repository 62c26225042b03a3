/** How far a session has signed in, and the second factors a user can have: declared once for the sessions table, the code and the API. */

/** password: the password alone (a second factor may still be due); mfa: a second factor passed too. */
export const AUTH_LEVELS = ["password", "mfa"] as const;
export type AuthLevel = (typeof AUTH_LEVELS)[number];

/** totp: an authenticator app's codes; webauthn: a passkey or security key. */
export const FACTOR_METHODS = ["totp", "webauthn"] as const;
export type Method = (typeof FACTOR_METHODS)[number];
