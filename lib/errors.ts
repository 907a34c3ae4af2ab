// Domain errors: services throw these; the API wrapper maps each to a status code in one place, and
// the dashboard shows their messages. Anything else is an internal error and is never shown.

export class DomainError extends Error {
  readonly status: number = 400;
  /** Endpoint-specific extra fields for the error body (e.g. `supportedNetworks`). */
  readonly extra?: Record<string, unknown>;
  constructor(message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.extra = extra;
  }
}

export class InvalidInput extends DomainError {}
export class InsufficientBalance extends DomainError {}
export class LimitExceeded extends DomainError {}
export class ProviderError extends DomainError {}
/** An upstream service (rate source, EVM node, Lightning API) failed or timed out: the spec's 500 "processing error", with a message that says which. */
export class UpstreamUnavailable extends DomainError {
  override readonly status: number = 500;
}
export class NotFound extends DomainError {
  override readonly status: number = 404;
}
export class Conflict extends DomainError {
  override readonly status: number = 409;
}
/** Authenticated, but this credential may not do this (a read-only API key writing). */
export class Forbidden extends DomainError {
  override readonly status: number = 403;
}
export class Unauthorized extends DomainError {
  override readonly status: number = 401;
}
export class PayloadTooLarge extends DomainError {
  override readonly status: number = 413;
}
