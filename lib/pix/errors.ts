// Lives in its own module so emv.ts and brcode.ts can both throw it without a circular import.
export class BrCodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BrCodeError";
  }
}
