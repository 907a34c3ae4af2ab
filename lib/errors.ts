// Domain errors: services throw these; the API wrapper maps each to a status code in one place, and
// the dashboard shows them. Anything else is an internal error and is never shown.
//
// The message is the API's: the spec's error bodies, worded in English for API clients. The dashboard
// words a refusal in Portuguese from its code and the values the message was made of
// (lib/i18n/api-errors.ts), so rewording a sentence for the API cannot change what a merchant reads.

type None = Record<string, never>;
/** Money is integer centavos, crypto amounts decimal strings, instants Dates: the dashboard formats them for the reader. */
type Centavos = number;

/**
 * Every refusal the dashboard words on its own, with the values its message is made of. A refusal
 * thrown without a code is one of the three general ones, by its kind (see `genericCode`).
 */
export type ErrorValues = {
  // The general refusals: the dashboard says only what kind of failure it was.
  refused: None;
  notFound: None;
  upstream: None;

  // PIX QR codes (BR Codes) paid with crypto.
  "brcode.invalid": None;
  "brcode.noAmount": None;
  "brcode.contradicts": { value: Centavos; codeValue: Centavos };
  "brcode.dynamic": None;
  "brcode.unpayable": None;
  "brcode.expiresSoon": { at: Date };

  // Assets, networks and amounts.
  "asset.notSupported": None;
  "asset.notOnNetwork": { asset: string; network: string };
  "network.notSupported": None;
  "amount.belowMinimum": { min: string; asset: string; network: string };
  "amount.aboveMax": { max: Centavos };
  "amount.tooSmallForTokens": None;
  "rates.unavailable": None;

  // Money leaving: balance, limits, destinations.
  "balance.insufficient": { debit: "withdrawal" | "refund"; needed: Centavos; balance: Centavos };
  "limit.perTransaction": { limit: Centavos; left: Centavos; daily: Centavos };
  "limit.daily": { daily: Centavos; left: Centavos };
  "pixKey.none": None;
  "pixKey.noneToCollect": None;
  "pixKey.invalid": None;
  "payoutKey.held": { until: Date };
  "destination.held": { destination: string; until: Date };

  // Orders and refunds.
  "order.notPending": None;
  "refund.exceeds": { left: Centavos; total: Centavos };
  "refund.nothingLeft": None;
  "refund.notCompleted": None;
  "refund.noReceipt": None;
  "refund.lightning": None;
  "refund.exchangeMax": { max: number; left: Centavos };
  "cryptoPix.lightningUnavailable": None;
  "cryptoPix.refundAddressLightning": None;

  // Invoices (charges with a due date).
  "invoice.refusedByProvider": { reason: string };
  "invoice.dueDatePast": { today: string };
  "invoice.dueDateFar": { latest: string };
  "invoice.discountDate": { dueDate: string };
  "invoice.discountDatePast": { today: string };
  "invoice.abatementTooLarge": None;
  "invoice.discountTooLarge": None;
  "invoice.amountTooSmall": { day: string };
  "invoice.notOpen": { status: string };
  "invoice.alreadyPaid": None;
  "invoice.notPayableOn": { day: string; lastDay: string };
  "invoice.payDayBeforeCreation": { created: string };

  // Subscriptions (Pix Automático).
  "subscription.refusedByProvider": { reason: string };
  "subscription.firstDatePast": { earliest: string };
  "subscription.lastDateBeforeFirst": None;
  "subscription.notCancellable": { status: string };
  "subscription.notAuthorisable": { status: string };
  "subscription.notChangeable": { status: string };
  "subscription.amountFixed": None;
  "subscription.amountBelowMinimum": { minimum: Centavos };
  "subscription.chargeNotOpen": { status: string };

  // Recipients (sub-accounts) and their payouts.
  "recipient.documentTaken": None;
  "recipient.disabled": None;
  "recipient.pixKeyHeld": { until: Date };
  "recipient.balanceInsufficient": { needed: Centavos; balance: Centavos };

  // Webhooks and API keys.
  "webhook.max": { max: number };
  "webhook.hostUnresolved": { host: string };
  "webhook.privateAddress": None;
  "webhook.disabled": None;
  "apiKey.max": { max: number };

  // Accounts, sign-in and team (dashboard only: their message is their code, no API client sees them).
  "auth.emailTaken": None;
  "auth.tooManySignUps": None;
  "auth.signUpLinkInvalid": None;
  "auth.tooManyAttempts": None;
  "auth.resetInvalid": None;
  "auth.inviteInvalid": None;
  "security.factorLocked": { minutes: number };
  "security.wrongPassword": None;
  "security.wrongCode": None;
  "security.wrongEmailCode": None;
  "security.userGone": None;
  "security.twoFactorAlreadyOn": None;
  "security.enrollAgain": None;
  "security.linkInvalid": None;
  "security.confirmOwnFactor": None;
  "security.nothingToConfirm": None;
  "team.cannotManage": None;
  "team.alreadyMember": None;
  "team.lastOwner": None;
  "developers.scopeNotAllowed": None;
  "destinations.linkInvalid": None;
  "destinations.isPayoutKey": None;
  "destinations.exists": None;
  "destinations.gone": None;
  "destinations.incomplete": None;
  "disputes.error.length": None;
  "disputes.error.notFound": None;
  "disputes.error.alreadyDefended": None;
  "disputes.error.late": None;
  "disputes.error.closed": None;
  "developers.testEventWaiting": None;
  "unapplied.notResolvable": None;
  "unapplied.alreadyResolved": None;
  "unapplied.tooSmallToAccept": None;
  "unapplied.addressInvalid": None;
  "unapplied.feeAboveAmount": None;
  "withdrawals.notFound": None;
  "withdrawals.notWaiting": None;
  "unapplied.notWaiting": None;
  "destinations.inUse": None;
};

export type ErrorCode = keyof ErrorValues;
export type GenericCode = "refused" | "notFound" | "upstream";
/** Codes whose refusal carries no values: the ones a dashboard-only refusal can be thrown with alone. */
export type PlainCode = { [C in ErrorCode]: ErrorValues[C] extends None ? C : never }[ErrorCode];

/** A code with its values (none to give for a code that has none). */
export type Coded = {
  [C in ErrorCode]: ErrorValues[C] extends None ? { code: C; values?: None } : { code: C; values: ErrorValues[C] };
}[ErrorCode];

export type DomainErrorOptions = (Coded | { code?: undefined; values?: undefined }) & {
  /** Endpoint-specific extra fields for the error body (e.g. `supportedNetworks`). */
  extra?: Record<string, unknown>;
};

export class DomainError extends Error {
  readonly status: number = 400;
  /** Endpoint-specific extra fields for the error body (e.g. `supportedNetworks`). */
  readonly extra?: Record<string, unknown>;
  readonly #coded?: Coded;
  #sentence = true;
  constructor(message: string, options?: DomainErrorOptions) {
    super(message);
    this.name = new.target.name;
    this.extra = options?.extra;
    if (options?.code !== undefined) this.#coded = { code: options.code, values: options.values ?? {} } as Coded;
  }

  /** What the refusal is, for the dashboard; the general one of its kind when it was thrown without one. */
  get coded(): Coded {
    return this.#coded ?? { code: this.genericCode, values: {} };
  }

  /** Whether the message is a sentence for API clients; not for a refusal only the dashboard shows (`of`), whose message is its code. */
  get isSentence(): boolean {
    return this.#sentence;
  }

  protected get genericCode(): GenericCode {
    return "refused";
  }

  /** A refusal only the dashboard shows (no API client meets it): its message is its code, and the dashboard words it in both languages. */
  static of<E extends DomainError>(this: new (message: string, options?: DomainErrorOptions) => E, code: PlainCode): E {
    const err = new this(code, { code } as Coded);
    err.#sentence = false;
    return err;
  }
}

export class InvalidInput extends DomainError {}
export class InsufficientBalance extends DomainError {}
export class LimitExceeded extends DomainError {}
export class ProviderError extends DomainError {}
/** An upstream service (rate source, EVM node, Lightning API) failed or timed out: the spec's 500 "processing error", with a message that says which. */
export class UpstreamUnavailable extends DomainError {
  override readonly status: number = 500;
  protected override get genericCode(): GenericCode {
    return "upstream";
  }
}
/**
 * A provider answered in a shape we cannot read (neither of the shapes its documents and SDKs declare):
 * never read as "nothing there"; whoever asked stops, and reconciliation alerts an operator.
 */
export class UnreadableAnswer extends UpstreamUnavailable {}
export class NotFound extends DomainError {
  override readonly status: number = 404;
  protected override get genericCode(): GenericCode {
    return "notFound";
  }
}
/** What `read` finds, or null when it is not there: a page answers that with its 404, not an error. */
export async function foundOrNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
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
