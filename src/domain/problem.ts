/** RFC 9457 problem details: the one shape of every error the hub returns. */
export interface ProblemField {
  readonly location: string;
  readonly message: string;
  readonly value?: unknown;
}

export interface ProblemBody {
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly ProblemField[];
  readonly reauth?: true;
}

export const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  421: "Misdirected Request",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Throw from anywhere in a request; the error plugin turns it into a problem response. */
export class HttpProblem extends Error {
  override readonly name = "HttpProblem";
  readonly status: number;
  readonly title: string;
  readonly errors: readonly ProblemField[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** The request needs a recent sign-in: the client should confirm the password (POST /api/v1/auth/reauth) and try again. */
  readonly reauth: boolean;

  constructor(
    status: number,
    detail: string,
    options: { title?: string; errors?: readonly ProblemField[]; headers?: Record<string, string>; reauth?: boolean } = {},
  ) {
    super(detail);
    this.status = status;
    this.title = options.title ?? STATUS_TITLES[status] ?? "Error";
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.reauth = options.reauth ?? false;
  }

  body(): ProblemBody {
    const body: ProblemBody = { title: this.title, status: this.status, detail: this.message };
    const withErrors = this.errors && this.errors.length > 0 ? { ...body, errors: this.errors } : body;
    return this.reauth ? { ...withErrors, reauth: true } : withErrors;
  }

  toResponse(): Response {
    return new Response(JSON.stringify(this.body()), {
      status: this.status,
      headers: { "content-type": PROBLEM_CONTENT_TYPE, "cache-control": "no-store", ...this.headers },
    });
  }
}
