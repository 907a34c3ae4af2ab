// The two windows every UX walk looks through: a phone (375 px, the narrowest common one) and a laptop.

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };
/** Each window under the name its screenshots carry. */
export const SIZES = [
  ["375", PHONE],
  ["1280", DESKTOP],
] as const;
